// esbuild's --inject for the binary's CommonJS bundle (package.json's build), which has no
// import.meta: the bundle's own file URL in its place, __filename as bin/mini-apiserver passes it.
export const import_meta_url = require('node:url').pathToFileURL(__filename).href;
