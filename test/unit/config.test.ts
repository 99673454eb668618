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
