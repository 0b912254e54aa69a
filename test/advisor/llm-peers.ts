import {
  json,
  LoopbackPeer,
  type PeerHandler,
  type PeerReply,
  type SeenRequest,
} from '../helpers/loopback-peer';

/**
 * Loopback model servers that answer as the real ones do, path by path,
 * errors included (from their public API docs and sources):
 * - Ollama (ollama/ollama docs/api.md, server/routes.go): GET /api/tags
 *   `{models: [{name, model, size, digest, details}]}`; POST /api/chat with
 *   `stream: false` answers one `{model, created_at, message: {role,
 *   content}, done: true, done_reason: "stop", ...}`; an unknown model is 404
 *   `{error: "model \"x\" not found, try pulling it first"}`; no /health.
 * - llama.cpp server (ggml-org/llama.cpp tools/server/README.md): GET /health
 *   `{status: "ok"}`; POST /v1/chat/completions in the OpenAI shape; POST
 *   /completion `{content, stop: true, model, tokens_predicted, ...}`; errors
 *   `{error: {code, message, type}}`. `legacy` drops /v1 (older builds).
 * - OpenAI chat completions: GET /v1/models `{object: "list", data: [{id,
 *   object: "model", owned_by}]}`; POST /v1/chat/completions `{id, object:
 *   "chat.completion", created, model, choices: [{index, message: {role,
 *   content}, finish_reason}], usage}`; a wrong key is 401 `{error: {message,
 *   type: "invalid_request_error", code: "invalid_api_key"}}`.
 */

/** Ollama's router answers unknown paths with Go's plain-text 404. */
function notFound(): PeerReply {
  return { status: 404, body: '404 page not found', contentType: 'text/plain' };
}

function chatBody(req: SeenRequest): { model?: string; messages?: { role: string; content: string }[] } {
  return JSON.parse(req.body || '{}') as never;
}

export function ollamaHandler(models: string[], reply: string): PeerHandler {
  return (req) => {
    if (req.method === 'GET' && req.path === '/api/tags') {
      return json(200, {
        models: models.map((name) => ({
          name,
          model: name,
          modified_at: '2025-05-01T10:00:00Z',
          size: 4_920_753_328,
          digest: 'a'.repeat(64),
          details: { format: 'gguf', family: 'llama', parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
        })),
      });
    }
    if (req.method === 'POST' && req.path === '/api/chat') {
      const body = chatBody(req);
      const model = body.model ?? '';
      if (!models.includes(model) && !models.includes(`${model}:latest`)) {
        return json(404, { error: `model "${model}" not found, try pulling it first` });
      }
      return json(200, {
        model,
        created_at: '2025-07-20T16:00:00.000000Z',
        message: { role: 'assistant', content: reply },
        done_reason: 'stop',
        done: true,
        total_duration: 1_200_000_000,
        load_duration: 20_000_000,
        prompt_eval_count: 310,
        eval_count: 58,
      });
    }
    return notFound();
  };
}

export function llamaCppHandler(reply: string, options: { legacy?: boolean } = {}): PeerHandler {
  return (req) => {
    if (req.method === 'GET' && req.path === '/health') return json(200, { status: 'ok' });
    if (req.method === 'GET' && req.path === '/v1/models' && !options.legacy) {
      return json(200, {
        object: 'list',
        data: [{ id: 'qwen2.5-3b-instruct-q4_k_m.gguf', object: 'model', owned_by: 'llamacpp' }],
      });
    }
    if (req.method === 'POST' && req.path === '/v1/chat/completions' && !options.legacy) {
      return json(200, {
        id: 'chatcmpl-llamacpp',
        object: 'chat.completion',
        created: 1_752_000_000,
        model: 'qwen2.5-3b-instruct-q4_k_m.gguf',
        choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 },
      });
    }
    if (req.method === 'POST' && req.path === '/completion') {
      const body = JSON.parse(req.body || '{}') as { prompt?: unknown };
      if (typeof body.prompt !== 'string') {
        return json(400, {
          error: { code: 400, message: '"prompt" must be provided', type: 'invalid_request_error' },
        });
      }
      return json(200, {
        content: reply,
        stop: true,
        model: 'qwen2.5-3b-instruct-q4_k_m.gguf',
        tokens_predicted: 60,
        tokens_evaluated: 300,
      });
    }
    return json(404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } });
  };
}

export function openAiHandler(apiKey: string, models: string[], reply: string): PeerHandler {
  const unauthorized = () =>
    json(401, {
      error: {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  return (req) => {
    if (req.headers.authorization !== `Bearer ${apiKey}`) return unauthorized();
    if (req.method === 'GET' && req.path === '/v1/models') {
      return json(200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'user' })),
      });
    }
    if (req.method === 'POST' && req.path === '/v1/chat/completions') {
      const body = chatBody(req);
      if (!models.includes(body.model ?? '')) {
        return json(404, {
          error: {
            message: `The model \`${body.model}\` does not exist.`,
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        });
      }
      return json(200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_752_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 },
      });
    }
    return json(404, {
      error: { message: 'Invalid URL', type: 'invalid_request_error', param: null, code: null },
    });
  };
}

export async function startPeer(handler: PeerHandler, peers: LoopbackPeer[]): Promise<LoopbackPeer> {
  const peer = await new LoopbackPeer(handler).start();
  peers.push(peer);
  return peer;
}
