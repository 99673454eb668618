// The ceiling: a bare node:http server answering the bytes and headers the service answered, recorded
// once. Requests with a query string get the recorded list page, the others the recorded rule. Plain
// JavaScript, run by plain node: nothing between the socket and the answer but Node itself.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const recorded = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function prepare({ status, headers, body }) {
  const bytes = Buffer.from(body);
  return { status, headers: { ...headers, 'content-length': String(bytes.length) }, bytes };
}

const get = prepare(recorded.get);
const list = prepare(recorded.list);

const server = createServer((request, response) => {
  const answer = request.url.includes('?') ? list : get;
  // Read the body of writes to the end, as a real server must before answering.
  request.resume();
  response.writeHead(answer.status, answer.headers);
  response.end(answer.bytes);
});

server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
