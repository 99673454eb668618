// Types of supported-node.js (plain JavaScript: it runs before anything is compiled).
export declare const SUPPORTED: string;
export declare function isSupportedNode(version: string): boolean;
export declare function requireSupportedNode(what: string): void;
