import { useEffect } from "react";
import { PRODUCT_NAME } from "../config/constants";

/** The document title for a page: the product name followed by the page name. */
export function formatPageTitle(pageName: string): string {
  return pageName ? `${PRODUCT_NAME} - ${pageName}` : PRODUCT_NAME;
}

/** Sets the document title while the page is shown. */
export function usePageTitle(pageName: string) {
  useEffect(() => {
    document.title = formatPageTitle(pageName);
  }, [pageName]);
}
