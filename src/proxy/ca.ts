// The proxy's certificate authority: created on first use, kept beside the database (./data by
// default), so that a browser or a test runner trusts it once.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateCACertificate } from 'mockttp';

export interface ProxyCa {
  keyPath: string;
  certPath: string;
  cert: string;
  created: boolean;
}

/** The CA in `dir` (default ./data/proxy-ca), created when there is none yet. */
export async function ensureCa(dir: string): Promise<ProxyCa> {
  const keyPath = join(dir, 'ca.key');
  const certPath = join(dir, 'ca.pem');
  let created = false;
  if (!existsSync(keyPath) || !existsSync(certPath)) {
    mkdirSync(dir, { recursive: true });
    const ca = await generateCACertificate({
      subject: { commonName: 'Rulekeeper proxy CA (this machine only)', organizationName: 'Rulekeeper' },
    });
    // The key is a secret: readable by its owner only.
    writeFileSync(keyPath, ca.key, { mode: 0o600 });
    writeFileSync(certPath, ca.cert);
    created = true;
  }
  return { keyPath, certPath, cert: readFileSync(certPath, 'utf8'), created };
}
