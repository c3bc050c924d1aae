/** lz4js@0.2.0 ships no types: the two LZ4 frame functions Sluice uses. */
declare module 'lz4js' {
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
}
