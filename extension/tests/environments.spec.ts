// The environment chosen on the options page: one Redirect to `{{API}}` sends a page load to staging's
// value once staging is chosen, and a change of the variable acts on the next page load, as any change.
import { expect, ok, signIn, test } from './fixtures.js';

test("the options page's environment decides what {{API}} stands for, and a variable's change acts at once", async ({
  extension,
  workspace,
  upstream,
  service,
}) => {
  const origin = upstream.origin;
  for (const name of ['dev', 'staging'])
    ok(await workspace.api.POST('/v1/environments', { body: { name } as never }));
  const values = { dev: `${origin}/dev`, staging: `${origin}/staging` };
  ok(
    await workspace.api.POST('/v1/variables', {
      body: { name: 'API', description: 'where the app calls', secret: false, values } as never,
    }),
  );
  ok(
    await workspace.api.POST('/v1/rules', {
      body: {
        name: 'api to the environment',
        ruleType: 'Redirect',
        status: 'Active',
        pairs: [
          {
            source: { key: 'path', operator: 'Equals', value: '/old' },
            destinationType: 'url',
            destination: '{{API}}/new',
          },
        ],
      },
    }),
  );
  const options = await signIn(extension, service.process.url, workspace.readKey);
  const environment = options.getByLabel('Environment');
  // The key is bound to none: its own is `default`, where API has no value.
  await expect(environment.getByRole('option')).toHaveText([
    "The key's own (default)",
    'default',
    'dev',
    'staging',
  ]);
  await expect(environment).toHaveValue('');

  await environment.selectOption('staging');
  await expect(options.getByRole('status')).toHaveText(/^Following workspace .* in environment staging; /);
  const page = await extension.context.newPage();
  const landing = async () => {
    await page.goto(`${origin}/old`);
    return page.url();
  };
  // The status may name staging before its rules are installed, so loads are tried until one lands;
  // the loads before that may have reached the upstream. From then on, none does.
  await expect.poll(landing).toBe(`${origin}/staging/new`);
  upstream.arrived.length = 0;
  expect(await landing()).toBe(`${origin}/staging/new`);
  expect(upstream.arrived.map((request) => request.url)).not.toContain('/old');

  ok(
    await workspace.api.PUT('/v1/variables/{name}', {
      params: { path: { name: 'API' } },
      body: {
        description: '',
        secret: false,
        values: { ...values, staging: `${origin}/staging-2` },
      } as never,
    } as never),
  );
  await expect.poll(landing, { timeout: 5_000, intervals: [50] }).toBe(`${origin}/staging-2/new`);

  // Chosen again after a reload of the options page, and dev chosen acts with dev's value.
  await options.reload();
  await expect(options.getByLabel('Environment')).toHaveValue('staging');
  await options.getByLabel('Environment').selectOption('dev');
  await expect.poll(landing).toBe(`${origin}/dev/new`);
});
