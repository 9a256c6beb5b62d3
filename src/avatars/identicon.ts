/** Identicons: a 5x5 mirrored pattern in one colour, drawn from a hex name, as a PNG (no network, no state). */
import { crc32, deflateSync } from 'node:zlib';

const CELLS = 5;
const CELL = 16;
const MARGIN = 8;
const SIZE = CELLS * CELL + 2 * MARGIN;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** An HSL colour (saturation and lightness fixed, readable on white) as RGB bytes. */
function colour(hue: number): [number, number, number] {
  const s = 0.55;
  const l = 0.5;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    hue < 60
      ? [c, x, 0]
      : hue < 120
        ? [x, c, 0]
        : hue < 180
          ? [0, c, x]
          : hue < 240
            ? [0, x, c]
            : hue < 300
              ? [x, 0, c]
              : [c, 0, x];
  return [Math.round((r + m) * 255), Math.round((g + m) * 255), Math.round((b + m) * 255)];
}

/** The PNG for `hash` (at least 8 hex digits): the same bytes for the same name, always. */
export function identiconPng(hash: string): Buffer {
  const bits = BigInt(`0x${hash.slice(0, 15)}`);
  const rgb = colour(Number.parseInt(hash.slice(-3), 16) % 360);
  // Columns 0..2 decide, 3 and 4 mirror 1 and 0.
  const on = (row: number, col: number) => {
    const c = col < 3 ? col : CELLS - 1 - col;
    return ((bits >> BigInt(row * 3 + c)) & 1n) === 1n;
  };
  const raw = Buffer.alloc(SIZE * (1 + SIZE * 3), 0xff);
  for (let y = 0; y < SIZE; y++) {
    const rowStart = y * (1 + SIZE * 3);
    raw[rowStart] = 0; // filter: none
    const cy = Math.floor((y - MARGIN) / CELL);
    for (let x = 0; x < SIZE; x++) {
      const cx = Math.floor((x - MARGIN) / CELL);
      if (cy < 0 || cy >= CELLS || cx < 0 || cx >= CELLS || !on(cy, cx)) continue;
      raw.set(rgb, rowStart + 1 + x * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
