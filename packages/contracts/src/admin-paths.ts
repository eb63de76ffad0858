// Where the platform's admin API and its pages live; the route tables of both admin areas (the review queue,
// remote access) build their paths from these.

export const ADMIN_BASE = '/api/admin';
export const REVIEW_QUEUE_PAGE = '/settings/review-queue';
export const REMOTE_ACCESS_PAGE = '/settings/remote-access';
