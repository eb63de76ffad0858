-- With tracing on, the W3C traceparent of the change that recorded the event (a proposal's approval): the sender's
-- delivery spans continue that trace, however much later and in whichever platform process they run. NULL when
-- tracing is off.
-- AlterTable
ALTER TABLE "platform_events" ADD COLUMN     "traceparent" TEXT;
