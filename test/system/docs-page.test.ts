// The docs page (/docs) in a real browser: Swagger UI renders every tag of the document, with the
// examples per rule type and per error, and the page logs no Content-Security-Policy violation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, loadPage } from '../helpers/chromium.js';
import { type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

describe.skipIf(!CHROMIUM)('the docs page in a browser', () => {
  let database: ScratchDatabase;
  let service: ServiceProcess;
  beforeAll(async () => {
    database = await scratchDatabase('sqlite');
    service = await startService({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('renders every tag of the document and logs no CSP violation', async () => {
    const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as {
      tags: { name: string }[];
    };
    const { dom, console } = await loadPage(`${service.url}/docs`);
    for (const { name } of document.tags) expect(dom).toContain(`id="operations-tag-${name}"`);
    expect(console.filter((line) => /Content Security Policy|Refused/i.test(line))).toEqual([]);
  });
});
