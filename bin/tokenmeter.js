#!/usr/bin/env node
// The CLI runs the compiled JavaScript in dist/ (built by `npm install` through the `prepare` script), so no
// TypeScript loader sits in the gateway's hot path and startup stays fast.
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
