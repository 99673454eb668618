// Redirects to local files, served with --allow-files: only files whose real path (symlinks resolved)
// is inside the folder, up to the body limit. What an answer says never shows a path of this machine:
// a client of the proxy learns nothing of its file system.
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export type FileAnswer = { status: 200; body: Buffer } | { status: 403 | 404 | 413; message: string };

function inside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (rest.split(sep)[0] !== '..' && !isAbsolute(rest));
}

/** The file a `file:` destination names inside `dir`, or why it is not served. */
export async function localFile(dir: string, url: string, maxBytes: number): Promise<FileAnswer> {
  const notFound = {
    status: 404,
    message: "the rule's local file is not in the --allow-files folder",
  } as const;
  let root: string;
  let path: string;
  try {
    root = await realpath(dir);
    // A file: URL's dot segments never climb above its root, so the path is read as inside the folder;
    // encoded slashes (..%2f) are refused by fileURLToPath.
    path = resolve(root, fileURLToPath(url).replace(/^\/+/, ''));
  } catch {
    return notFound;
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return notFound;
  }
  // A symbolic link inside the folder may point anywhere: what counts is where it leads.
  if (!inside(root, real))
    return { status: 403, message: "the rule's local file leads outside the --allow-files folder" };
  try {
    const info = await stat(real);
    if (!info.isFile()) return notFound;
    if (info.size > maxBytes)
      return { status: 413, message: `the rule's local file is larger than --max-body-bytes (${maxBytes})` };
    return { status: 200, body: await readFile(real) };
  } catch {
    return notFound;
  }
}
