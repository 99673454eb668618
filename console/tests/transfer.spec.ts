import { readFile } from 'node:fs/promises';
import { chooseImportFile, expect, ok, signIn, test } from './fixtures.js';
import { expectReadsOnPhone } from './phone.js';

// A Requestly export as Requestly writes it: a group, a rule in it, and a rule that is not valid.
const REQUESTLY_FILE = [
  { objectType: 'group', id: 'Group_ab12', name: 'Staging', status: 'Active', creationDate: 1700000000000 },
  {
    objectType: 'rule',
    id: 'Redirect_xy98',
    name: 'API to staging',
    ruleType: 'Redirect',
    status: 'Active',
    groupId: 'Group_ab12',
    pairs: [
      {
        id: 'p1',
        source: { key: 'Url', operator: 'Contains', value: 'api.example.com' },
        destinationType: 'url',
        destination: 'https://staging.example.com',
      },
    ],
  },
  {
    objectType: 'rule',
    id: 'Delay_bad1',
    name: 'broken',
    ruleType: 'Delay',
    status: 'Active',
    pairs: [{ source: { key: 'Url', operator: 'Contains', value: 'x' } }],
  },
];

test('a dropped Requestly file is checked by a dry run, imported when confirmed, and exported back', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await page.getByRole('link', { name: 'Import & export' }).click();

  // Dropped on the drop zone, as a person drags a file from their desktop.
  const transfer = await page.evaluateHandle((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'requestly-export.json', { type: 'application/json' }));
    return data;
  }, JSON.stringify(REQUESTLY_FILE));
  await page.getByText('Drop a Requestly export').dispatchEvent('drop', { dataTransfer: transfer });

  const report = page.getByRole('region', { name: /Checked requestly-export.json/ });
  await expect(report).toContainText('2 would be created, 0 would be updated, 1 failed.');
  const rows = report.getByRole('row');
  await expect(rows.nth(3)).toContainText('Fails');
  // The fault in the form's words, first in the report, and no pointer into the file.
  const failures = report.getByRole('region', { name: 'The record that fails' });
  await expect(failures).toContainText('Record 3 “broken”');
  await expect(failures).toContainText('Pair 1');
  await expect(report).not.toContainText('/2/pairs/0');
  // A dry run draws no ids: those the import gives are not shown as if they were known.
  await expect(rows.nth(1)).toContainText('a new id, given when imported');
  await expect(report).toContainText('the check does not reserve one');
  await expect(report.getByRole('button', { name: 'Import 2 records' })).toBeDisabled();
  expect(ok(await workspace.api.GET('/v1/rules', {})).total).toBe(0);
  await page.screenshot({ path: test.info().outputPath('import-report.png'), fullPage: true });

  await page.getByLabel('Import the others, skipping those').check();
  await expect(page.getByRole('button', { name: 'Import 2 records' })).toBeEnabled();
  await page.getByRole('button', { name: 'Import 2 records' }).click();
  await expect(page.getByRole('region', { name: 'Imported requestly-export.json' })).toContainText(
    '2 were created, 0 were updated, 1 failed.',
  );
  const [rule] = ok(await workspace.api.GET('/v1/rules', {})).data;
  const [group] = ok(await workspace.api.GET('/v1/groups', {})).data;
  expect(rule).toMatchObject({ name: 'API to staging', groupId: group?.id });
  // The import's report names the ids it gave.
  const imported = page.getByRole('region', { name: 'Imported requestly-export.json' });
  await expect(imported.getByRole('row', { name: /API to staging/ })).toContainText(rule?.id ?? '?');
  await expect(imported.getByRole('row', { name: /Staging/ })).toContainText(group?.id ?? '?');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export to a file' }).click();
  const file = await (await download).path();
  const exported = JSON.parse(await readFile(file, 'utf8'));
  expect(
    exported.map((record: { objectType: string; name: string }) => [record.objectType, record.name]),
  ).toEqual([
    ['group', 'Staging'],
    ['rule', 'API to staging'],
  ]);
});

test('a file that is not JSON is refused with the place of the fault, and nothing changes', async ({
  page,
  workspace,
}) => {
  await signIn(page, workspace.key);
  await chooseImportFile(page, 'broken.json', '[{"objectType": "rule", ');
  await expect(page.getByRole('alert')).toContainText('The file was not imported.');
  expect(ok(await workspace.api.GET('/v1/rules', {})).total).toBe(0);
});

test('the import report reads at 390 px: cards, the failures first, no sideways scroll, no word split', async ({
  page,
  workspace,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // A file of many records, long names and ids among them, and some that fail far down.
  const records: unknown[] = REQUESTLY_FILE.slice(0, 2);
  for (let i = 0; i < 40; i++) {
    records.push({
      objectType: 'rule',
      id: `Redirect_longrecordid${i}`,
      name: `Send the checkout and payment pages of the storefront to staging, number ${i}`,
      ruleType: 'Redirect',
      status: 'Inactive',
      pairs: [
        {
          source: { key: 'Url', operator: 'Contains', value: `checkout.example.com/path/${i}` },
          destinationType: 'url',
          destination: i % 13 === 12 ? '' : 'https://staging.example.com/checkout',
        },
      ],
    });
  }
  await signIn(page, workspace.key);
  await chooseImportFile(page, 'a-long-requestly-export-of-many-rules.json', JSON.stringify(records));
  const report = page.getByRole('region', { name: /Checked a-long-requestly-export/ });
  await expect(report).toContainText('39 would be created, 0 would be updated, 3 failed.');
  const failures = report.getByRole('region', { name: 'The 3 records that fail' });
  await expect(failures).toContainText('Record 15');
  await expect(failures).toContainText('Pair 1 · Destination');
  // The failures are on the first screen, not thousands of pixels down.
  await expect(failures).toBeInViewport({ ratio: 0.1 });
  await expectReadsOnPhone(report, 'the dry run report');
  await page.screenshot({ path: test.info().outputPath('import-report-390.png'), fullPage: true });

  await page.getByLabel('Import the others, skipping those').check();
  await page.getByRole('button', { name: 'Import 39 records' }).click();
  const imported = page.getByRole('region', { name: /Imported a-long-requestly-export/ });
  await expect(imported).toContainText('39 were created');
  await expectReadsOnPhone(imported, 'the import report');
});
