import { MCP_MAX_BODY_BYTES } from '@pa/contracts';
import { charsetIsUtf8, MalformedInput, PayloadTooLarge, UnsupportedMediaType } from '@pa/http-kit';
import type { RequestHandler } from 'express';

// The MCP endpoint's JSON body: at most MCP_MAX_BODY_BYTES of UTF-8, not content-encoded. Read here rather than by
// express.json: a JSON-RPC call is a few hundred bytes, and body-parser's general machinery (raw-body, iconv,
// inflation) cost a portfolio read's tools/call more CPU than the MCP SDK did. The refusals are the bridge's own
// (413 payload-too-large, 415 unsupported-media-type, 400 malformed-json).

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TOO_LARGE = () =>
  new PayloadTooLarge(
    'payload-too-large',
    `The request body is larger than ${MCP_MAX_BODY_BYTES / 1024} KiB.`,
  );

export const mcpJsonBody: RequestHandler = (req, _res, next) => {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new UnsupportedMediaType('unsupported-media-type', 'Send the body without a Content-Encoding.');
  }
  if (!charsetIsUtf8(req.headers['content-type'])) {
    throw new UnsupportedMediaType('unsupported-media-type', 'Send UTF-8 JSON.');
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > MCP_MAX_BODY_BYTES) throw TOO_LARGE();

  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  const fail = (err: Error) => {
    if (failed) return;
    failed = true;
    // stop reading: Node discards the rest once the answer is sent
    req.removeListener('data', onData);
    req.pause();
    next(err);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > MCP_MAX_BODY_BYTES) fail(TOO_LARGE());
    else chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('error', () => fail(new MalformedInput('malformed-json', 'The request body could not be read.')));
  req.on('end', () => {
    if (failed) return;
    if (Number.isFinite(declared) && declared !== size) {
      fail(new MalformedInput('malformed-json', 'The request body does not match its Content-Length.'));
      return;
    }
    try {
      const text = UTF8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      req.body = JSON.parse(text) as unknown;
    } catch {
      fail(new MalformedInput('malformed-json', 'The request body is not valid UTF-8 JSON.'));
      return;
    }
    next();
  });
};
