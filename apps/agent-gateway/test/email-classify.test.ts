import { describe, expect, it } from 'vitest';
import { classifyEmail, needsReply } from '../src/features/email/email-classify.ts';

// The gateway's own reading of the mail it fetches itself (the platform classifies its own): the category a
// letting agent would file a message under, and whether a person is waiting for an answer.

describe('classifyEmail', () => {
  it.each([
    ['HMO licence renewal', 'The council writes about your licence.', 'council'],
    ['CP12 for 14 Oak Street', 'Gas safety certificate attached.', 'compliance'],
    ['EICR booked', 'The electrician comes on Monday.', 'compliance'],
    ['Rent for June', 'Sorry, the rent is late this month.', 'arrears'],
    ['Section 21 notice', 'Our solicitor has prepared it.', 'legal'],
    ['Invoice 88', 'Please find the invoice attached.', 'invoice'],
    ['Offer on 7 Ash Road', 'We would like to make an offer.', 'offer'],
    ['Viewing on Saturday', 'Can we book a viewing?', 'viewing'],
    ['Leak under the sink', 'Water everywhere.', 'maintenance'],
    ['Hello', 'Just saying hi.', 'other'],
  ])('%s → %s', (subject, snippet, category) => {
    expect(classifyEmail(subject, snippet)).toBe(category);
  });
});

describe('needsReply', () => {
  it.each([
    ['tenant@flat.test', 'Can you fix the tap?', '', true],
    ['tenant@flat.test', 'Boiler', 'Please send someone today.', true],
    ['tenant@flat.test', 'Keys', 'Let me know when I can collect them', true],
    ['trade@gutters.test', 'Invoice 88', 'Please find the invoice attached.', false],
    ['no-reply@portal.test', 'Your viewing is confirmed?', '', false],
    ['notifications@bank.test', 'Payment received', 'Can you believe it', false],
    ['tenant@flat.test', 'Thanks', 'All sorted now.', false],
  ])('%s: %s %s → %s', (from, subject, snippet, expected) => {
    expect(needsReply(from, subject, snippet)).toBe(expected);
  });
});
