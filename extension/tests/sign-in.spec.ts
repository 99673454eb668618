// Signing in through the options page, and a key the server refuses shown as an error where the
// person looks: the options page before anything is kept, the popup once a key stops working.
import { expect, signIn, test } from './fixtures.js';

test('a key the server does not know is refused on the options page, and nothing is kept', async ({
  extension,
  service,
}) => {
  const options = await extension.open('options.html');
  await options.getByLabel('Server URL').fill(service.process.url);
  await options.getByLabel('API key').fill('rk_not-a-key-of-this-server');
  await options.getByRole('button', { name: 'Sign in' }).click();
  await expect(options.getByRole('alert')).toHaveText('Invalid API key');
  expect(await extension.worker.evaluate(() => chrome.storage.local.get(null))).toEqual({});

  const popup = await extension.open('popup.html');
  await expect(popup.getByRole('status')).toHaveText('Not signed in.');
});

test('signing in shows who the key is, and that a read key is all the extension needs', async ({
  extension,
  workspace,
  service,
}) => {
  const options = await signIn(extension, service.process.url, workspace.readKey);
  await expect(options.getByText('This key can change rules')).toHaveCount(0);
  // The key is kept for the worker, and never put back in the page.
  await expect(options.getByLabel('API key')).toHaveValue('');
  await options.reload();
  await expect(options.getByLabel('API key')).toHaveValue('');
  await expect(options.getByLabel('Server URL')).toHaveValue(service.process.url);
});

test('a revoked key is reported in the popup and on the options page', async ({
  extension,
  workspace,
  service,
}) => {
  const options = await signIn(extension, service.process.url, workspace.readKey);
  await workspace.revokeReadKey();

  const popup = await extension.open('popup.html');
  await expect(popup.getByRole('alert')).toHaveText('Invalid API key');
  await expect(popup.getByRole('status')).toHaveText('The server refused the key; no rules are applied.');
  await expect(options.getByRole('alert')).toHaveText('Invalid API key');
  expect(await extension.worker.evaluate(() => chrome.declarativeNetRequest.getDynamicRules())).toEqual([]);
});
