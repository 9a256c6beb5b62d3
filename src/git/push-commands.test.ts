import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { PushCommands, pkt } from './smart-http.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

/** Feeds `body` through a PushCommands in chunks of `size` bytes; returns it and what passed through. */
async function feed(body: Buffer, size: number): Promise<{ tap: PushCommands; out: Buffer }> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) chunks.push(body.subarray(i, i + size));
  const tap = new PushCommands();
  const seen: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    tap,
    new Writable({
      write(chunk: Buffer, _enc, done) {
        seen.push(chunk);
        done();
      },
    }),
  );
  return { tap, out: Buffer.concat(seen) };
}

describe('PushCommands', () => {
  const body = Buffer.concat([
    Buffer.from(pkt(`${Z} ${A} refs/heads/main\0 report-status side-band-64k agent=git/2.43\n`)),
    Buffer.from(pkt(`${A} ${B} refs/heads/release/1.0\n`)),
    Buffer.from(pkt(`${B} ${Z} refs/tags/v1\n`)),
    Buffer.from('0000PACK\0\0\0\x02binary pack data'),
  ]);

  it('reads the ref updates in front of the pack, whatever the chunking, and passes every byte on', async () => {
    for (const size of [1, 3, 7, 64, body.length]) {
      const { tap, out } = await feed(body, size);
      expect(tap.complete).toBe(true);
      expect(tap.updates).toEqual([
        { before: Z, after: A, ref: 'refs/heads/main' },
        { before: A, after: B, ref: 'refs/heads/release/1.0' },
        { before: B, after: Z, ref: 'refs/tags/v1' },
      ]);
      expect(out.equals(body)).toBe(true);
    }
  });

  it('skips shallow lines; reports nothing for a list it cannot read whole', async () => {
    const shallow = Buffer.from(`${pkt(`shallow ${A}\n`)}${pkt(`${A} ${B} refs/heads/x\n`)}0000`);
    expect((await feed(shallow, 5)).tap.updates).toEqual([{ before: A, after: B, ref: 'refs/heads/x' }]);
    for (const bad of [
      `${pkt('push-cert\0push-cert=1\n')}0000`,
      `${pkt(`${A} ${B} not-a-ref\n`)}0000`,
      `zzzz${A}`,
      pkt(`${A} ${B} refs/heads/never-flushed\n`),
    ]) {
      const { tap } = await feed(Buffer.from(bad), 4);
      expect(tap.complete && tap.updates.length > 0).toBe(false);
    }
  });
});
