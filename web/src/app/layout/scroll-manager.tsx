import { useEffect } from "react";
import { useLocation } from "wouter";
import { idFromHash, scrollToIdWhenReady } from "../../lib/scroll";

/** On navigation: to the anchor when the address has a hash, otherwise to the top (spec 2). */
export function ScrollManager() {
  const [location] = useLocation();
  useEffect(() => {
    const id = idFromHash(window.location.hash);
    if (id) return scrollToIdWhenReady(id);
    window.scrollTo({ top: 0, left: 0, behavior: "auto" });
  }, [location]);
  return null;
}
