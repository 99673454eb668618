// The rule types Chrome's declarativeNetRequest cannot express at all, and why; the extension does
// what a content script can (Script injection; Response bodies for fetch and XHR).
export const NOT_EXPRESSIBLE: Record<string, string> = {
  Script: "Chrome's rules cannot inject scripts: the extension's content scripts inject them into pages",
  Response:
    "Chrome's rules cannot answer a request: the extension's content scripts serve Response bodies to a page's fetch and XHR",
  Request: "Chrome's rules cannot change a request's body",
  Delay: "Chrome's rules cannot delay a request",
};
