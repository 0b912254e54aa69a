import type { FastifyReply } from 'fastify';
import { epochSeconds } from '../../core/clock';
import { buildAccuracyReport } from '../../irrigation/history/accuracy-report';
import { exportCsvChunks } from '../../irrigation/history/csv-export';
import { deploymentTimezone } from '../../irrigation/history/deployment-zone';
import { decisionsChunks, exportJsonChunks, historyWindowChunks } from '../../irrigation/history/json-bodies';
import {
  DAYS_RULES,
  parseDays,
  parseExportFormat,
  parseZone,
  type ExportFormat,
} from '../../irrigation/history/query';
import { localCalendar } from '../../irrigation/skip/local-days';
import { soilRouteBody } from '../../irrigation/soil/soil-route';
import { effectiveRainThresholdIn } from '../../irrigation/history/rain-threshold';
import type { Chunk } from '../../irrigation/history/keyset-pages';
import { bodyFromChunks } from '../../irrigation/history/text-stream';
import { trailingWindow } from '../../irrigation/history/window';
import { localDateOf } from '../../irrigation/schedule/local-date';
import type { Store } from '../../store/store';
import type { HttpDeps } from '../deps';
import type { RouteHandler } from '../lazy-handlers';

/**
 * The handlers of the irrigation history's read side (spec 4.4; the route
 * table is routes/irrigation-history.ts). This module and the history's
 * body builders load on the first history request. Large bodies stream page
 * by page (irrigation/history/).
 */

const JSON_TYPE = 'application/json; charset=utf-8';
const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', json: JSON_TYPE };

type Query = Record<string, unknown>;
type HistoryRoute = 'history' | 'decisions' | 'export' | 'soil' | 'accuracy';

function sendChunks(reply: FastifyReply, chunks: Iterator<Chunk>, contentType: string): FastifyReply {
  const body = bodyFromChunks(chunks);
  reply.type(contentType);
  return reply.send(body.kind === 'whole' ? body.body : body.stream);
}

export function irrigationHistoryHandlers(deps: HttpDeps, store: Store): Record<HistoryRoute, RouteHandler> {
  const now = () => epochSeconds(deps.clock);
  const timezone = () => deploymentTimezone(deps.config.current, deps.ha?.facts() ?? null);

  return {
    history: async (request, reply) => {
      const days = parseDays(request.query as Query, DAYS_RULES.history);
      return sendChunks(reply, historyWindowChunks(store, trailingWindow(now(), days)), JSON_TYPE);
    },

    decisions: async (request, reply) => {
      const days = parseDays(request.query as Query, DAYS_RULES.decisions);
      return sendChunks(reply, decisionsChunks(store, trailingWindow(now(), days)), JSON_TYPE);
    },

    export: async (request, reply) => {
      const query = request.query as Query;
      const days = parseDays(query, DAYS_RULES.export);
      const format = parseExportFormat(query);
      const nowEpoch = now();
      const bounds = trailingWindow(nowEpoch, days);
      const filename = `raincheck-irrigation-${localDateOf(nowEpoch, timezone())}.${format}`;
      reply.header('content-disposition', `attachment; filename="${filename}"`);
      const chunks = format === 'csv' ? exportCsvChunks(store, bounds) : exportJsonChunks(store, bounds);
      return sendChunks(reply, chunks, CONTENT_TYPES[format]);
    },

    soil: async (request) => {
      const query = request.query as Query;
      const days = parseDays(query, DAYS_RULES.soil);
      const zone = parseZone(query, deps.irrigation.zoneSlugs());
      const nowEpoch = now();
      deps.soil?.current(nowEpoch);
      const cal = localCalendar(deps.irrigation.timezone(), nowEpoch);
      const rows = store.soilLedger.range(zone, cal.addDays(cal.today, -days), cal.addDays(cal.today, -1));
      return soilRouteBody(zone, days, cal, rows, deps.irrigation.snapshot());
    },

    accuracy: async (request) => {
      const days = parseDays(request.query as Query, DAYS_RULES.accuracy);
      const zone = timezone();
      return buildAccuracyReport(store, {
        nowEpoch: now(),
        days,
        timezone: zone,
        rainThresholdIn: effectiveRainThresholdIn(store, deps.config.current, zone),
      });
    },
  };
}
