// The embedded PGlite database: one owning process per data directory, served on a loopback socket.
export { embeddedAdapterFactory, mapPgError } from './embedded-adapter.ts';
export { DataDirInUseError, OWNER_FILE, type OwnerRecord, ownerIsLive, readOwner } from './embedded-lock.ts';
export { readSocketPassword, SOCKET_PASSWORD_FILE, SOCKET_USER } from './embedded-auth.ts';
export { EmbeddedSocketServer, type EmbeddedSocketServerOptions } from './embedded-socket.ts';
export { connectToOwner, openEmbedded } from './open-embedded.ts';
