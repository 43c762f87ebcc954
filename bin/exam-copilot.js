#!/usr/bin/env node
// Thin launcher: the compiled entry owns error handling and exit codes.
import { applyFaissThreadDefaults } from '../dist/src/indexing/load-faiss.js';
import { main } from '../dist/src/cli/main.js';

// Process-wide settings belong to the process entry: FAISS's thread libraries read them when they load.
applyFaissThreadDefaults(process.env);

await main(process.argv);
