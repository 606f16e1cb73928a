// Stylesheets are side-effect imports the bundler turns into a CSS file.
declare module "*.css";
// Written at build time by scripts/build-web.ts (self-hosted fonts + UnoCSS utilities).
declare module "virtual:generated.css";
