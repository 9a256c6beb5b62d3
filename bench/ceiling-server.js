// The ceiling for HTTP intake benchmarks: a bare Node HTTP server that reads the body, parses the same JSON
// and answers `[]`. Usage: node bench/ceiling-server.js <port>
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
createServer((req, res) => {
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
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
