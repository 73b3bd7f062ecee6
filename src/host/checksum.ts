/**
 * CRC-32 (IEEE) for stored records: cheap enough for a 250 MB checkpoint (about a second) and
 * catches every truncation and nearly every damaged byte. Strings are hashed by UTF-16 code unit
 * (low byte, then high byte), so no encoding pass is needed.
 */
const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

export function checksum(data: string | Uint8Array): number {
  let crc = -1;
  if (typeof data === 'string') {
    for (let i = 0; i < data.length; i++) {
      const c = data.charCodeAt(i);
      crc = TABLE[(crc ^ c) & 0xff]! ^ (crc >>> 8);
      crc = TABLE[(crc ^ (c >>> 8)) & 0xff]! ^ (crc >>> 8);
    }
  } else {
    for (let i = 0; i < data.length; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}
