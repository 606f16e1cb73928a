// Generated at build time by scripts/build-web.ts: self-hosted @font-face rules + UnoCSS utilities.
import "virtual:generated.css";
import "./styles/global.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/app";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
