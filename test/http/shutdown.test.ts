import request from 'supertest';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { bootService, makeDataDir, minimalConfig } from '../helpers/service';

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function get(port: number, urlPath: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe('graceful stop', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('resolves, stops accepting connections and closes the database', async () => {
    const { service, port, dataDir } = await bootService();
    dirs.push(dataDir);
    await request(service.server).put('/api/v1/config').send(minimalConfig()).expect(200);
    expect(await connects(port)).toBe(true);
    expect(service.store?.db.open).toBe(true);

    await expect(service.stop()).resolves.toBeUndefined();
    expect(service.server.listening).toBe(false);
    expect(await connects(port)).toBe(false);
    expect(service.store?.db.open).toBe(false);
  });

  it('does not wait for an idle keep-alive connection to time out', async () => {
    const { service, port, dataDir } = await bootService();
    dirs.push(dataDir);
    const agent = new http.Agent({ keepAlive: true });
    try {
      expect(await get(port, '/api/v1/info', agent)).toBe(200);
      const started = Date.now();
      await service.stop();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(service.store?.db.open).toBe(false);
    } finally {
      agent.destroy();
    }
  });

  it('stops cleanly when the database never opened', async () => {
    const dataDir = makeDataDir();
    dirs.push(dataDir);
    fs.mkdirSync(path.join(dataDir, 'raincheck.db'));
    const { service } = await bootService({ dataDir });
    expect(service.store).toBeNull();
    await expect(service.stop()).resolves.toBeUndefined();
    expect(service.server.listening).toBe(false);
  });
});
