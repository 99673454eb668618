// A Playwright request as the engine sees it: its URL, method, headers and body as the browser sends
// them, its resource type from Playwright's (more exact than Sec-Fetch-Dest, which Chromium sends only
// to secure origins), and the page that sent it.
import type { Request } from '@playwright/test';
import type { RequestInput } from '../engine/index.js';
import type { ResourceType } from '../model/rule-types/source.js';
import { engineInput } from '../proxy/effects.js';

const TYPES: Record<string, ResourceType> = {
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  xhr: 'xmlhttprequest',
  fetch: 'xmlhttprequest',
  websocket: 'websocket',
};

/** The frame a request came from, or none (a service worker's request has no frame). */
function frameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    return undefined;
  }
}

function resourceTypeOf(request: Request): ResourceType | undefined {
  const type = request.resourceType();
  if (type !== 'document') return TYPES[type];
  return frameOf(request)?.parentFrame() ? 'sub_frame' : 'main_frame';
}

export async function requestInput(request: Request): Promise<RequestInput> {
  const headers = await request.allHeaders();
  const input = engineInput(request.url(), request.method(), headers, request.postData() ?? undefined);
  const resourceType = resourceTypeOf(request);
  // Without a Referer (a policy that sends none), a subresource's page is its frame's document.
  const frameUrl = request.isNavigationRequest() ? undefined : frameOf(request)?.url();
  const pageUrl = input.pageUrl ?? (frameUrl?.startsWith('http') ? frameUrl : undefined);
  return {
    ...input,
    ...(resourceType ? { resourceType } : {}),
    ...(pageUrl ? { pageUrl } : {}),
  };
}
