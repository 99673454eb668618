// A real OpenID provider for the tests: panva's oidc-provider (certified, the one openid-client is
// tested against) on loopback, with one client (this service), PKCE required, and test accounts. Its
// login page is ours: it signs in whichever account the test chose (`next`), so a test drives the
// whole flow over HTTP without a form, as a person who clicks "Sign in" would.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by their `sub`. */
  accounts: Map<string, TestAccount>;
  /** The `sub` the next login signs in. */
  next: string | undefined;
  /** Registers the service's callback as the client's one redirect URI (once the service listens). */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

/** Starts listening first, so that the issuer (with its port) is known before the service is configured. */
export async function startProvider(): Promise<TestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (!handler) {
      res.writeHead(503).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const test: TestProvider = {
    issuer,
    clientId: 'rulekeeper',
    clientSecret: randomBytes(24).toString('base64url'),
    accounts: new Map(),
    next: undefined,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: test.clientId,
            client_secret: test.clientSecret,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        jwks: { keys: [{ ...jwk, kid: 'test', use: 'sig', alg: 'RS256' }] },
        cookies: { keys: [randomBytes(32).toString('hex')] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'] },
        // Every client must use PKCE, confidential or not.
        pkce: { required: () => true },
        features: { devInteractions: { enabled: false } },
        findAccount: (_ctx, sub) => {
          const account = test.accounts.get(sub);
          return account && { accountId: sub, claims: () => ({ sub, ...account }) };
        },
        // The service is the provider's own client here: consent is given, as a company's SSO does.
        loadExistingGrant: async (ctx) => {
          const grant = new ctx.oidc.provider.Grant({
            clientId: ctx.oidc.client?.clientId,
            accountId: ctx.oidc.session?.accountId,
          });
          grant.addOIDCScope('openid email profile');
          await grant.save();
          return grant;
        },
      });
      const callback = provider.callback();
      handler = (req, res) => {
        // The login page: signs in the account the test chose.
        if (req.url?.startsWith('/interaction/')) {
          if (test.next === undefined) {
            res.writeHead(400).end('the test chose no account (provider.next)');
            return;
          }
          provider
            .interactionFinished(
              req,
              res,
              { login: { accountId: test.next } },
              { mergeWithLastSubmission: false },
            )
            .catch((error: unknown) => {
              res.writeHead(500).end(String(error));
            });
          return;
        }
        callback(req, res);
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return test;
}
