-- Messaging sessions are keyed by the worker and the chat (`<worker id>:<chat id>`), no longer by the chat alone,
-- so that one person writing to two workers' bots has two conversations (channel-conversation.ts,
-- channelSessionId). A session kept by chat id moves to the worker whose bot is paired with that chat; a session
-- whose chat is paired with several workers' bots mixes their conversations and cannot be split, so it is left
-- as it was, read by no turn any more (as is the session of a chat no bot is paired with now).
UPDATE "chat_sessions" AS s
   SET "external_id" = c."worker_id"::text || ':' || s."external_id"
  FROM "channels" AS c
 WHERE s."channel" IN ('telegram', 'whatsapp')
   AND s."owner" = ''
   AND c."type" = s."channel"
   AND c."chat_id" = s."external_id"
   AND (SELECT count(*) FROM "channels" AS other
         WHERE other."type" = s."channel" AND other."chat_id" = s."external_id") = 1;
