// A property's current tenancy: the newest one that has not ended. The compliance rules judge it (its start
// date and deposit), and a property's page shows it; rollup-statement.ts picks the same one in SQL.
export const currentTenancy = {
  where: { status: { not: 'ended' } },
  orderBy: [{ startDate: 'desc' as const }, { id: 'desc' as const }],
  take: 1,
};
