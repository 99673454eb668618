// The environment as the service reads it: defaults, accepted values, and a clear error for the rest.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('KEY_CACHE_TTL_MS', () => {
  it('defaults to 5 s, and 0 turns the key cache off', () => {
    expect(loadConfig({}).keyCacheTtlMs).toBe(5000);
    expect(loadConfig({ KEY_CACHE_TTL_MS: '0' }).keyCacheTtlMs).toBe(0);
    expect(loadConfig({ KEY_CACHE_TTL_MS: '60000' }).keyCacheTtlMs).toBe(60_000);
  });

  it.each(['-1', '1.5', 'soon', '3600001'])('refuses %j with a message naming the variable', (raw) => {
    expect(() => loadConfig({ KEY_CACHE_TTL_MS: raw })).toThrow(
      new ConfigError(`KEY_CACHE_TTL_MS must be an integer from 0 to 3600000, got "${raw}"`),
    );
  });
});

describe('LOG_FORMAT', () => {
  it('defaults to auto (readable on a terminal, JSON otherwise), and takes json or pretty', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
  });

  it('refuses anything else with a message naming the variable', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(
      new ConfigError('LOG_FORMAT must be one of auto, json, pretty, got "yaml"'),
    );
  });
});

describe('single sign-on (OIDC_*)', () => {
  const sso = {
    OIDC_ISSUER: 'https://id.example.com/realms/acme',
    OIDC_CLIENT_ID: 'rulekeeper',
    OIDC_CLIENT_SECRET: 's3cret',
  };

  it('is off without the variables, and on with all three', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig(sso).oidc).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      clientId: 'rulekeeper',
      clientSecret: 's3cret',
      allowedDomains: undefined,
    });
  });

  it('refuses half a configuration, naming what is missing', () => {
    expect(() => loadConfig({ OIDC_ISSUER: sso.OIDC_ISSUER })).toThrow(
      new ConfigError(
        'single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are not set',
      ),
    );
    expect(() => loadConfig({ ...sso, OIDC_CLIENT_SECRET: '' })).toThrow(
      new ConfigError(
        'single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together: OIDC_CLIENT_SECRET is not set',
      ),
    );
    expect(() => loadConfig({ OIDC_ALLOWED_DOMAINS: 'example.com' })).toThrow(
      new ConfigError(
        'OIDC_ALLOWED_DOMAINS is set but single sign-on is not: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too',
      ),
    );
  });

  it('takes an https issuer, or http on loopback alone', () => {
    expect(loadConfig({ ...sso, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(loadConfig({ ...sso, OIDC_ISSUER: 'http://localhost:9000/' }).oidc?.issuer).toBe(
      'http://localhost:9000/',
    );
    for (const issuer of [
      'http://id.example.com',
      'id.example.com',
      'https://id.example.com/?a=1',
      'ftp://x',
    ])
      expect(() => loadConfig({ ...sso, OIDC_ISSUER: issuer })).toThrow(
        new ConfigError(
          `OIDC_ISSUER must be the provider's https URL, without query or fragment (http only on loopback), got "${issuer}"`,
        ),
      );
  });

  it('reads OIDC_ALLOWED_DOMAINS as domains separated by commas, lower-cased', () => {
    expect(
      loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: 'Example.com, @example.org' }).oidc?.allowedDomains,
    ).toEqual(['example.com', 'example.org']);
    expect(loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: ' ' }).oidc?.allowedDomains).toBeUndefined();
    expect(() => loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: 'example.com,,x' })).toThrow(
      new ConfigError(
        'OIDC_ALLOWED_DOMAINS must be email domains separated by commas (example.com,example.org), got ""',
      ),
    );
    expect(() => loadConfig({ ...sso, OIDC_ALLOWED_DOMAINS: 'a@b.com' })).toThrow(ConfigError);
  });
});
