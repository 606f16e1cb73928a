// Bun imports these as text (`with { type: "text" }`), which embeds them in compiled binaries.
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.md" {
  const text: string;
  export default text;
}
