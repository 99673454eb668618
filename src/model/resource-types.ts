// What a request is for, as a browser says it (a filter's `resourceType`). A file of its own, with no
// imports, so that the extension's service worker can use the list without the schemas around it.
export const RESOURCE_TYPES = [
  'xmlhttprequest',
  'script',
  'stylesheet',
  'image',
  'media',
  'font',
  'websocket',
  'main_frame',
  'sub_frame',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];
