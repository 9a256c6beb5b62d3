// The ceiling for HTTP intake benchmarks: a bare Node HTTP server that reads the body, parses the same JSON
// and answers `[]`. Usage: node bench/ceiling-server.js [port] (default 0: an ephemeral one, printed as `ready <url>`)
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('[]');
    } catch {
      res.writeHead(400);
      res.end();
    }
  });
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`ready http://127.0.0.1:${server.address().port}\n`),
);
