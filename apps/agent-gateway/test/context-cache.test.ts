import { describe, expect, it } from 'vitest';
import { createContextCache } from '../src/features/sessions/context-cache.ts';

// The cache's own rules; that the database decides whether it is used is turn-store.test.ts's part.
const turn = (content: string, role: 'user' | 'assistant' = 'user') => ({ role, content });

describe('context cache', () => {
  it('knows a session by its key and gives back the window it was given, with its fingerprint', () => {
    const cache = createContextCache({ window: 3 });
    expect(cache.lookup('k1')).toBeUndefined();
    cache.set('k1', 's1', ['7', '9'], [turn('a'), turn('b', 'assistant')]);
    expect(cache.lookup('k1')?.fingerprint).toBe('7,9');
    expect(cache.lookup('k1')?.turns).toEqual([turn('a'), turn('b', 'assistant')]);
    expect(cache.lookup('k2')).toBeUndefined();
  });

  it('an appended turn joins the window, which keeps only its newest turns', () => {
    const cache = createContextCache({ window: 3 });
    cache.set('k', 's', ['1', '2', '3'], [turn('1'), turn('2'), turn('3')]);
    cache.append('s', '10', turn('10', 'assistant')); // 10 > 3 although '10' < '3' as text
    expect(cache.lookup('k')?.fingerprint).toBe('2,3,10');
    expect(cache.lookup('k')?.turns.map((t) => t.content)).toEqual(['2', '3', '10']);
  });

  it('a turn older than the newest cached one drops the entry rather than guess where it goes', () => {
    const cache = createContextCache({ window: 20 });
    cache.set('k', 's', ['5', '8'], [turn('5'), turn('8')]);
    cache.append('s', '6', turn('6'));
    expect(cache.lookup('k')).toBeUndefined();
    cache.append('s', '9', turn('9')); // nothing to append to
    expect(cache.lookup('k')).toBeUndefined();
  });

  it('an empty window is a fingerprint too', () => {
    const cache = createContextCache({ window: 20 });
    cache.set('k', 's', [], []);
    expect(cache.lookup('k')?.fingerprint).toBe('');
    cache.append('s', '1', turn('hi'));
    expect(cache.lookup('k')?.fingerprint).toBe('1');
  });

  it('a key whose session was made anew leaves the old session behind', () => {
    const cache = createContextCache({ window: 20 });
    cache.set('k', 'old', ['1'], [turn('a')]);
    cache.set('k', 'new', [], []);
    expect(cache.stats().sessions).toBe(1); // the old session's entry is gone
    expect(cache.lookup('k')?.fingerprint).toBe('');
  });

  it('keeps at most maxSessions, dropping the least recently used', () => {
    const cache = createContextCache({ window: 20, maxSessions: 2 });
    cache.set('k1', 's1', ['1'], [turn('a')]);
    cache.set('k2', 's2', ['2'], [turn('b')]);
    cache.lookup('k1'); // s1 used last: s2 goes
    cache.set('k3', 's3', ['3'], [turn('c')]);
    expect([cache.lookup('k1'), cache.lookup('k2'), cache.lookup('k3')].map((e) => e?.fingerprint)).toEqual([
      '1',
      undefined,
      '3',
    ]);
    expect(cache.stats().sessions).toBe(2);
  });

  it('keeps at most maxChars of content, and never a window larger than that', () => {
    const cache = createContextCache({ window: 20, maxChars: 10 });
    cache.set('k1', 's1', ['1'], [turn('x'.repeat(6))]);
    cache.set('k2', 's2', ['2'], [turn('y'.repeat(3))]);
    expect(cache.stats()).toEqual({ sessions: 2, chars: 9 });
    cache.append('s2', '3', turn('z'.repeat(3))); // 12 in all: s1, the least recently used, goes
    expect(cache.stats()).toEqual({ sessions: 1, chars: 6 });
    cache.set('k4', 's4', ['4'], [turn('w'.repeat(11))]);
    expect(cache.lookup('k4')).toBeUndefined();
  });

  it('forgets a session', () => {
    const cache = createContextCache({ window: 20 });
    cache.set('k', 's', ['1'], [turn('a')]);
    cache.forget('s');
    expect(cache.lookup('k')).toBeUndefined();
    expect(cache.stats()).toEqual({ sessions: 0, chars: 0 });
  });
});
