import { interpolateDocument, interpolateString, isPureReference } from '../../server/src/config/interpolate';
import type { JsonObject } from '../../server/src/config/json-walk';
import { validateDocument } from '../../server/src/config/validate';
import { useBuiltinKinds, validDoc } from '../helpers/config-fixtures';

useBuiltinKinds();

const ENV = {
  HOME_NAME: 'Casa',
  OWM_KEY: 'owm-123',
  NET: '10.0.0.0/8',
  PROXY: '192.168.1.1/32',
  MODEL: 'llama3',
  PORT_NUM: '8080',
  SERIAL: 'HB-00001',
  FIELD: 'temp_f',
  SRC: 'forecast',
};

describe('interpolateString', () => {
  it('replaces every reference in a string, several per string', () => {
    expect(interpolateString('${HOME_NAME} on port ${PORT_NUM}/${PORT_NUM}', ENV)).toBe(
      'Casa on port 8080/8080',
    );
  });

  it('turns $${literal} into a literal ${literal} even when the variable is set', () => {
    expect(interpolateString('$${HOME_NAME}', ENV)).toBe('${HOME_NAME}');
    expect(interpolateString('pre $${UNSET_VAR} post ${HOME_NAME}', ENV)).toBe('pre ${UNSET_VAR} post Casa');
  });

  it('reports each missing variable and substitutes an empty string', () => {
    const missing: string[] = [];
    expect(interpolateString('a${NOPE_ONE}b${NOPE_TWO}c', ENV, (name) => missing.push(name))).toBe('abc');
    expect(missing).toEqual(['NOPE_ONE', 'NOPE_TWO']);
  });

  it('treats an empty variable as set', () => {
    const missing: string[] = [];
    expect(interpolateString('[${EMPTY}]', { EMPTY: '' }, (name) => missing.push(name))).toBe('[]');
    expect(missing).toEqual([]);
  });

  it('leaves text that is not a reference alone', () => {
    for (const text of ['$HOME_NAME', '{HOME_NAME}', '${1BAD}', '${}', 'price: $5', '${ HOME_NAME }']) {
      expect(interpolateString(text, ENV)).toBe(text);
    }
  });

  it('recognises a pure reference', () => {
    expect(isPureReference('${OWM_KEY}')).toBe(true);
    expect(isPureReference('$${OWM_KEY}')).toBe(false);
    expect(isPureReference('x${OWM_KEY}')).toBe(false);
    expect(isPureReference('${OWM_KEY}${OWM_KEY}')).toBe(false);
  });
});

describe('document interpolation', () => {
  function referencingDoc(): JsonObject {
    const doc = validDoc();
    (doc.deployment as JsonObject).display_name = '${HOME_NAME} yard';
    doc.sources = [
      {
        id: '${SRC}',
        priority: 50,
        enabled: true,
        kind: 'open_meteo',
        config: { past_days: 3, api_key: '${OWM_KEY}', nested: { deep: ['x', { deeper: '${MODEL}' }] } },
      },
      {
        id: 'tempest',
        priority: 100,
        enabled: true,
        kind: 'tempest_udp',
        config: { hub_serial: '${SERIAL}', bind_addr: '0.0.0.0:${PORT_NUM}' },
      },
    ];
    doc.controllers = [
      { id: 'dry', default: true, enabled: true, kind: 'dry_run', config: { label: '$${NOT_EXPANDED}' } },
    ];
    doc.llm = {
      provider: 'ollama',
      base_url: 'http://llm:${PORT_NUM}',
      model: '${MODEL}',
      probe_order: ['${PORT_NUM}', '11434'],
    };
    doc.auth = { trusted_networks: ['${NET}', '127.0.0.1/32'], trusted_proxies: ['${PROXY}'] };
    doc.engine = {
      overrides: { '${FIELD}': '${SRC}' },
      field_source_chains: { rain_in: ['${SRC}', 'tempest'] },
    };
    return doc;
  }

  it('replaces references at every depth, in arrays and in per-kind config blocks', () => {
    const { report, config } = validateDocument(referencingDoc(), ENV);
    expect(report.errors).toEqual([]);
    expect(config).not.toBeNull();
    if (!config) return;
    expect(config.deployment.display_name).toBe('Casa yard');
    expect(config.sources[0]?.id).toBe('forecast');
    expect(config.sources[0]?.config).toEqual({
      past_days: 3,
      api_key: 'owm-123',
      nested: { deep: ['x', { deeper: 'llama3' }] },
    });
    expect(config.sources[1]?.config).toEqual({ hub_serial: 'HB-00001', bind_addr: '0.0.0.0:8080' });
    expect(config.controllers[0]?.config).toEqual({ label: '${NOT_EXPANDED}' });
    expect(config.llm).toMatchObject({
      base_url: 'http://llm:8080',
      model: 'llama3',
      probe_order: ['8080', '11434'],
    });
    expect(config.auth.trusted_networks).toEqual(['10.0.0.0/8', '127.0.0.1/32']);
    expect(config.auth.trusted_proxies).toEqual(['192.168.1.1/32']);
    expect(config.engine.field_source_chains).toEqual({ rain_in: ['forecast', 'tempest'] });
  });

  it('never interpolates keys', () => {
    const { report, config } = validateDocument(referencingDoc(), ENV);
    expect(report.errors).toEqual([]);
    // The key stays as written; only its value is interpolated.
    expect(config?.engine.overrides).toEqual({ '${FIELD}': 'forecast' });

    const doc = validDoc();
    (doc.sources as JsonObject[])[0]!.config = { '${UNSET_KEY_VAR}': 'value', past_days: 2 };
    const second = validateDocument(doc, {});
    expect(second.report.errors).toEqual([]);
    expect(second.config?.sources[0]?.config).toEqual({ '${UNSET_KEY_VAR}': 'value', past_days: 2 });
  });

  it('does not mutate the input document', () => {
    const doc = referencingDoc();
    const before = JSON.stringify(doc);
    interpolateDocument(doc, ENV);
    validateDocument(doc, ENV);
    expect(JSON.stringify(doc)).toBe(before);
  });

  it('reports each missing variable as env_var_missing with its JSON path', () => {
    const doc = referencingDoc();
    const { report, config } = validateDocument(doc, { ...ENV, OWM_KEY: undefined, MODEL: undefined });
    expect(config).toBeNull();
    expect(report.ok).toBe(false);
    const missing = report.errors.filter((e) => e.code === 'env_var_missing');
    expect(missing.map((e) => e.path).sort()).toEqual(
      ['$.sources[0].config.api_key', '$.sources[0].config.nested.deep[1].deeper', '$.llm.model'].sort(),
    );
    const apiKey = missing.find((e) => e.path === '$.sources[0].config.api_key');
    expect(apiKey?.message).toContain('${OWM_KEY}');
  });

  it('reports a missing variable inside an array with the index in the path', () => {
    const doc = validDoc();
    doc.auth = { trusted_networks: ['127.0.0.1/32', '${LAN_CIDR}'] };
    const { report } = validateDocument(doc, {});
    expect(report.errors).toContainEqual(
      expect.objectContaining({ code: 'env_var_missing', path: '$.auth.trusted_networks[1]' }),
    );
  });

  it('reports a missing variable in a zone with a quoted path when the slug needs it', () => {
    const doc = validDoc();
    doc.zones = { '1st_bed': { display_name: '${BED_NAME}', controller_station: '1' } };
    const { report } = validateDocument(doc, {});
    expect(report.errors).toContainEqual(
      expect.objectContaining({ code: 'env_var_missing', path: '$.zones["1st_bed"].display_name' }),
    );
  });

  it('an escaped reference to an unset variable is not missing', () => {
    const doc = validDoc();
    (doc.deployment as JsonObject).display_name = '$${NOT_SET_ANYWHERE}';
    const { report, config } = validateDocument(doc, {});
    expect(report.errors).toEqual([]);
    expect(config?.deployment.display_name).toBe('${NOT_SET_ANYWHERE}');
  });
});
