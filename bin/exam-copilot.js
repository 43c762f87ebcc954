#!/usr/bin/env node
// Thin launcher: the compiled entry owns error handling and exit codes.
import { main } from '../dist/src/cli/main.js';

await main(process.argv);
