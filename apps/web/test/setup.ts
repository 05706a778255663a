// jsdom installs its own typed-array constructors, so Node Buffers (used by @solana/web3.js and
// buffer-layout) would fail `instanceof Uint8Array`. Restore Node's, as in the browser where there is one realm.
const nodeUint8Array = Object.getPrototypeOf(Buffer.prototype).constructor as Uint8ArrayConstructor;
if (globalThis.Uint8Array !== nodeUint8Array) globalThis.Uint8Array = nodeUint8Array;

// jsdom has no layout: navigation's scroll-to-top is a no-op here (jsdom would report "not implemented").
if (typeof window !== "undefined") window.scrollTo = () => undefined;
