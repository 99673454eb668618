// The Webhooks page: an admin adds a webhook to a real receiver on loopback, copies its secret (shown
// once, gone after), sees the delivery of a rule written, with its attempt, and replays it; a key that
// is not an admin's is told it manages none.
import { createHmac } from 'node:crypto';
import { createKeyWithCli } from '../../test/helpers/cli.js';
import { startReceiver } from '../../test/helpers/webhook-receiver.js';
import { seriousViolations } from './axe.js';
import { expect, signIn, test } from './fixtures.js';

test('an admin adds a webhook, keeps its secret, sees a delivery with its attempt and replays it', async ({
  page,
  service,
  workspace,
}) => {
  const receiver = await startReceiver();
  try {
    // The fixture's workspace key writes only: an admin key of the same owner manages webhooks.
    const name = `hooks-${test.info().testId}`;
    const admin = await createKeyWithCli(service.database.url, name, 'hook admin', ['--scope', 'admin']);
    const writer = await createKeyWithCli(service.database.url, name, 'hook admin');

    // Webhooks are an admin's: the nav offers them to admins only, and the page says so to others.
    await signIn(page, workspace.key);
    await expect(
      page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Rules' }),
    ).toBeVisible();
    await expect(
      page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }),
    ).toHaveCount(0);
    await page.goto('/#/webhooks');
    await expect(page.getByText("Only the workspace's admins and owners")).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();

    await signIn(page, admin.key);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
    await expect(page.getByText('No webhooks yet.')).toBeVisible();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('team chat');
    await page.getByLabel('Events').selectOption({ label: 'Rule and group changes' });
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.getByRole('region', { name: `The signing secret of ${receiver.url}` });
    await expect(shown).toBeVisible();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await seriousViolations(page), 'webhooks with a secret shown').toEqual([]);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect(page.getByRole('textbox', { name: 'Signing secret' })).toHaveCount(0);
    const row = page.getByRole('row', { name: new RegExp(receiver.url) });
    await expect(row).toContainText('rules.changed');
    await expect(row).toContainText('on');
    expect(await page.content()).not.toContain(secret);

    // A rule written elsewhere reaches the receiver, signed with that secret.
    const rule = await fetch(`${service.process.url}/v1/rules`, {
      method: 'POST',
      headers: { 'x-api-key': writer.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'told',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'host', operator: 'Equals', value: 'told.example' } }],
      }),
    });
    expect(rule.status).toBe(201);
    await receiver.arrived(1);
    const [got] = receiver.received;
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got?.headers['rulekeeper-signature'])) ?? [];
    expect(createHmac('sha256', secret).update(`${t}.${got?.body}`).digest('hex')).toBe(v1);

    await page.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click();
    const deliveries = page.getByRole('list', { name: 'Deliveries, newest first' });
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await expect(deliveries.getByRole('listitem').first()).toContainText('delivered', { timeout: 1000 });
    }).toPass();
    await expect(deliveries.getByRole('listitem').first()).toContainText('rules.changed');
    await deliveries.getByText('1 attempt').click();
    await expect(deliveries).toContainText('200');
    expect(await seriousViolations(page), 'deliveries').toEqual([]);

    await deliveries
      .getByRole('button', { name: /^Replay / })
      .first()
      .click();
    await expect(page.getByRole('status').filter({ hasText: 'is sent again now' })).toBeVisible();
    await receiver.arrived(2);
    expect(JSON.parse(receiver.received[1]?.body ?? '{}').id).toBe(JSON.parse(got?.body ?? '{}').id);

    await page.getByRole('button', { name: `Turn off ${receiver.url}` }).click();
    await expect(row).toContainText('off');
    await page.getByRole('button', { name: `Remove ${receiver.url}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove webhook' }).click();
    await expect(page.getByText('No webhooks yet.')).toBeVisible();
  } finally {
    await receiver.close();
  }
});
