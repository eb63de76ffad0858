// `node --import ./record-imports.mjs …`: every module URL the process resolves is appended to the file named by
// RECORD_IMPORTS_TO, so that a test can tell which modules a process loaded.
import { register } from 'node:module';

register('./record-imports-hook.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS_TO } });
