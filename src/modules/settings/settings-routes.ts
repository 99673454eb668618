// HTTP routes of /v1/settings: thin handlers over the settings service.
import type { FastifyInstance } from 'fastify';
import { ALWAYS, BODY, errorResponses, success } from '../../http/responses.js';
import { single } from '../../http/schemas.js';
import { Settings, SettingsPatch } from './settings-schemas.js';
import type { SettingsService } from './settings-service.js';

export function registerSettingsRoutes(app: FastifyInstance, settings: SettingsService): void {
  const common = { tags: ['settings'], security: [{ apiKey: [] }] };

  app.get(
    '/settings',
    {
      config: { scope: 'read' },
      schema: {
        ...common,
        operationId: 'getSettings',
        summary: "Get the workspace's settings",
        description: 'Role needed: viewer.',
        response: {
          200: success("The workspace's settings.", single(Settings)),
          ...errorResponses(...ALWAYS),
        },
      },
    },
    async (request) => ({ success: true, data: await settings.get(request.principal) }),
  );

  app.patch(
    '/settings',
    {
      config: { scope: 'admin', bodyError: 'SETTINGS_PAYLOAD_INVALID' },
      schema: {
        ...common,
        operationId: 'updateSettings',
        summary: "Change the workspace's settings",
        description:
          'Role needed: admin (a key reaching `admin`). Every instance acts on the new settings at once; ' +
          'each change is in the activity (`setting_changed`).',
        body: SettingsPatch,
        response: {
          200: success("The workspace's settings, changed.", single(Settings)),
          ...errorResponses('SETTINGS_PAYLOAD_INVALID', 'UNAUTHORIZED_ACTION', ...BODY, ...ALWAYS),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await settings.update(request.principal, request.body, request.ip),
    }),
  );
}
