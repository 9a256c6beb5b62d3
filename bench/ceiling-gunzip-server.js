// The ceiling for the error-ingestion benchmark: a bare Node HTTP server that gunzips the body, splits the
// envelope and parses each line as JSON, then answers `{"id": ...}`. Usage: node bench/ceiling-gunzip-server.js [port] (default 0: an ephemeral one, printed as `ready <url>`)
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';

const port = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const lines = body
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: lines[0]?.event_id ?? null }));
    } catch {
      res.writeHead(400);
      res.end();
    }
  });
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`ready http://127.0.0.1:${server.address().port}\n`),
);
