// Records shaped like those of real Requestly export files (the fields, nesting and quirks of
// exports people published), one per shape that decision 7 accepts, and the older formats of decision 12.
type Json = Record<string, unknown>;

const owner = 'Ad4ZkQ2nVbT7yWm1pLx9sRc3eHj2';

/** The fields every Requestly rule record carries around its pairs. */
function ruleRecord(id: string, ruleType: string, name: string, pairs: unknown[], extra: Json = {}): Json {
  return {
    creationDate: 1687325066447,
    createdBy: owner,
    currentOwner: owner,
    description: '',
    groupId: '',
    id,
    isSample: false,
    lastModified: 1687325089101,
    lastModifiedBy: owner,
    modificationDate: 1687325089101,
    name,
    objectType: 'rule',
    pairs,
    ruleType,
    status: 'Active',
    schemaVersion: '3.0.0',
    ...extra,
  };
}

const source = (value: string, filters: unknown = [{}]) => ({
  filters,
  key: 'Url',
  operator: 'Contains',
  value,
});

export const requestlyGroup: Json = {
  children: [],
  creationDate: 1687325000000,
  createdBy: owner,
  currentOwner: owner,
  description: '',
  id: 'Group_1687325000000',
  isFavourite: false,
  lastModifiedBy: owner,
  modificationDate: 1687325000000,
  name: 'Staging',
  objectType: 'group',
  status: 'Active',
};

/** One real-world shape per record, each named for what it carries that a strict schema would refuse. */
export const requestlyRules: Record<string, Json> = {
  'Redirect pair without destinationType, filters [null]': ruleRecord(
    'Redirect_kt3hx',
    'Redirect',
    'API to staging',
    [
      {
        destination: 'https://staging.example.com/api',
        id: 'ad7ai',
        source: source('example.com/api', [null]),
      },
    ],
    { groupId: 'Group_1687325000000', ruleIndexForWhichPickerOpened: 0 },
  ),
  'Response with nested response, statusCode "" and isCompressed': ruleRecord(
    'Response_d3x9q',
    'Response',
    'Mock user',
    [
      {
        id: 'v4f2k',
        response: {
          isCompressed: false,
          resourceType: 'restApi',
          serveWithoutRequest: false,
          statusCode: '',
          type: 'static',
          value: '{"name":"Ada"}',
        },
        source: source('/api/user'),
      },
    ],
  ),
  'Request with nested request and isCompressed': ruleRecord('Request_pq81z', 'Request', 'Body', [
    {
      id: 'r5t6y',
      request: {
        isCompressed: false,
        resourceType: 'graphqlApi',
        statusCode: '',
        type: 'static',
        value: '{}',
      },
      source: source('/graphql'),
    },
  ]),
  'Replace pair with a status': ruleRecord('Replace_w2e4r', 'Replace', 'Swap host', [
    { from: 'prod', id: 'z8x7c', source: source('example.com'), status: 'Inactive', to: 'staging' },
  ]),
  'Headers with ids on modifications, one-object modifications': ruleRecord(
    'Headers_j6k7l',
    'Headers',
    'CORS',
    [
      {
        id: 'h0d3r',
        modifications: {
          Request: [{ header: 'X-Debug', id: 'qw3rt', type: 'Add', value: '1' }],
          Response: [{ header: 'Access-Control-Allow-Origin', id: 'as4df', type: 'Add', value: '*' }],
        },
        source: { ...source('example.com'), requestType: 'xmlhttprequest' },
      },
    ],
  ),
  'QueryParam with ids on modifications': ruleRecord('QueryParam_b5n6m', 'QueryParam', 'Debug flag', [
    {
      id: 'qp1a2',
      modifications: [
        { actionWhenParamExists: 'Overwrite', id: 'zx9cv', param: 'debug', type: 'Add', value: '1' },
      ],
      source: source('example.com'),
    },
  ]),
  'Script with libraries': ruleRecord('Script_m1n2b', 'Script', 'Inject', [
    {
      id: 's9d8f',
      libraries: [],
      scripts: [
        { codeType: 'js', fileName: '', loadTime: 'afterPageLoad', type: 'code', value: 'console.log(1)' },
      ],
      source: source('example.com'),
    },
  ]),
  'Delay as a string, key in upper case': ruleRecord('Delay_c4v5b', 'Delay', 'Slow', [
    { delay: '1500', id: 'd1l2y', source: { filters: [], key: 'URL', operator: 'Contains', value: 'slow' } },
  ]),
  'Cancel with pageUrl filter': ruleRecord('Cancel_g7h8j', 'Cancel', 'Block ads', [
    {
      id: 'c4n5c',
      source: {
        filters: [{ pageUrl: { operator: 'Contains', value: 'news' }, requestMethod: ['GET'] }],
        key: 'host',
        operator: 'Equals',
        value: 'ads.example.com',
      },
    },
  ]),
  'UserAgent with env': ruleRecord('UserAgent_u7a8g', 'UserAgent', 'iPhone', [
    {
      env: 'iPhone',
      envType: 'device',
      id: 'u1a2g',
      source: source('example.com'),
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
    },
  ]),
};

/** Pre-2018 formats, which only the import converts (decision 12). */
export const olderRecords: Record<string, Json> = {
  'flat Headers pairs': {
    creationDate: 1449473616456,
    description: '',
    id: 'Headers_1449473616456',
    name: 'Old headers',
    pairs: [
      {
        header: 'X-Old',
        source: { key: 'Url', operator: 'Contains', value: 'old.example.com' },
        target: 'Request',
        type: 'Add',
        value: '1',
      },
      {
        header: 'Server',
        source: { key: 'Url', operator: 'Contains', value: '' },
        target: 'Response',
        type: 'Remove',
        value: '',
      },
    ],
    ruleType: 'Headers',
    status: 'Active',
  },
  'Redirect with source.values': {
    creationDate: 1449473616457,
    description: '',
    destination: 'https://new.example.com',
    id: 'Redirect_1449473616457',
    name: 'Old redirect',
    ruleType: 'Redirect',
    source: { key: 'Url', operator: 'Contains', values: ['old.example.com', 'older.example.com'] },
    status: 'Inactive',
  },
};
