// The durable-write ceiling: a bare node:http server that parses a rule-sized JSON body and inserts it
// durably before answering 201 with the row as JSON. What a Node server can write on this machine with
// nothing between the socket and the database but Node itself, the driver and one JSON.parse.
//   node ceiling-create-server.mjs sqlite:/path/file.db   WAL, synchronous=FULL, and the rows that arrive
//       in one turn of the event loop committed together (one BEGIN … COMMIT, one fsync), as the
//       service's group commit (src/db/sqlite-group-commit.ts) does; every answer waits for its COMMIT.
//   node ceiling-create-server.mjs postgres://…           one INSERT per request (autocommit) on a pool
//       of 10 connections (the service's DB_POOL_SIZE default).
// Plain JavaScript, run by plain node. The table has the columns of a rule row and its primary key only.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const target = process.argv[2] ?? '';

const COLUMNS = ['id', 'workspace_id', 'name', 'description', 'status', 'rule_type', 'pairs', 'created_at'];
const CREATE = `create table if not exists ceiling_rules (
  id text primary key, workspace_id text not null, name text not null, description text not null,
  status text not null, rule_type text not null, pairs text not null, created_at bigint not null)`;

function rowOf(body) {
  const rule = JSON.parse(body);
  const type = typeof rule.ruleType === 'string' ? rule.ruleType : 'Redirect';
  return {
    id: `${type}_${randomBytes(6).toString('base64url')}`,
    workspace_id: 'ceiling',
    name: String(rule.name ?? ''),
    description: String(rule.description ?? ''),
    status: rule.status === 'Active' ? 'Active' : 'Inactive',
    rule_type: type,
    pairs: JSON.stringify(rule.pairs ?? []),
    created_at: Date.now(),
  };
}

/** An insert function: (row) => Promise resolved once the row is on disk. */
async function openStore() {
  if (target.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(target.slice('sqlite:'.length));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(CREATE);
    const insert = db.prepare(
      `insert into ceiling_rules (${COLUMNS.join(', ')}) values (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    );
    let pending = [];
    const flush = () => {
      const batch = pending;
      pending = [];
      try {
        db.exec('begin immediate');
        for (const item of batch) insert.run(item.row);
        db.exec('commit');
        for (const item of batch) item.resolve();
      } catch (error) {
        if (db.inTransaction) db.exec('rollback');
        for (const item of batch) item.reject(error);
      }
    };
    return (row) =>
      new Promise((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ row, resolve, reject });
      });
  }
  if (target.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    await pool.query(CREATE);
    const text = `insert into ceiling_rules (${COLUMNS.join(', ')}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
    return (row) => pool.query({ name: 'ceiling-insert', text, values: COLUMNS.map((c) => row[c]) });
  }
  throw new Error(`usage: ceiling-create-server.mjs sqlite:FILE | postgres://URL (got "${target}")`);
}

const insert = await openStore();

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    let row;
    try {
      row = rowOf(Buffer.concat(chunks).toString('utf8'));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"success":false,"message":"Invalid JSON"}');
      return;
    }
    insert(row).then(
      () => {
        const body = JSON.stringify({ success: true, data: row });
        response.writeHead(201, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          location: `/v1/rules/${row.id}`,
        });
        response.end(body);
      },
      (error) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, message: String(error) }));
      },
    );
  });
});

server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
