// The portfolio facts the chat and the daily summary share: pure functions of the bridge's records and a date.
export * from './briefing-facts.ts';
export * from './briefing-writer.ts';
export * from './compliance-facts.ts';
export * from './compliance-words.ts';
export * from './dates.ts';
export * from './deal-facts.ts';
export * from './email-facts.ts';
export * from './lettings-facts.ts';
export * from './uk-format.ts';
export * from './attention.ts';
