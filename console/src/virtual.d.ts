// Made by the build from the OpenAPI document (vite.config.ts).
declare module 'virtual:pair-schemas' {
  const schemas: Record<string, import('./forms/schema.js').JsonSchema>;
  export default schemas;
}
