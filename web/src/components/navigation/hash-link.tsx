import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { useLocation } from "wouter";
import { idFromHash, scrollToElement } from "../../lib/scroll";

type HashLinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { href: string };

/**
 * A link to a section ("/#pricing", "#data-we-collect"). On the same page it scrolls smoothly to
 * the section (120 px below the top) and records the hash; from elsewhere it navigates and the
 * scroll manager finds the section once the page has rendered.
 */
export function HashLink({ href, onClick, ...props }: HashLinkProps) {
  const [location, setLocation] = useLocation();
  const hashIndex = href.indexOf("#");
  const path = hashIndex > 0 ? href.slice(0, hashIndex) : hashIndex === 0 ? location : href;
  const id = hashIndex >= 0 ? idFromHash(href.slice(hashIndex)) : null;

  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (path === location && id) {
      window.history.pushState(window.history.state, "", `${path}#${encodeURIComponent(id)}`);
      scrollToElement(id);
      return;
    }
    setLocation(id ? `${path}#${encodeURIComponent(id)}` : path);
  };

  return <a href={id ? `${path}#${encodeURIComponent(id)}` : path} onClick={handleClick} {...props} />;
}
