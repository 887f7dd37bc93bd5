/* GET /openapi.json: an OpenAPI 3.0 document of every route, its fields and statuses (docs/serve.md
 * "OpenAPI"); tests/openapi_check.py validates it against the OpenAPI Initiative's schema. */
#include "serve_tool.h"

/* The document is written as JSON, not as a C string of it: the preprocessor's # makes the
 * tokens a string (quotes and backslashes escaped, white space between tokens one space). */
#define JSON(...) #__VA_ARGS__

/* An error answer, {"error": "..."}, as an entry NAME of components/responses: the routes
 * name it ({"$ref": "#/components/responses/NAME"}) instead of repeating its body; BUSY_ANSWER's
 * has Retry-After (429, 503). */
#define ERROR_ANSWER(name, why) \
  JSON(name: {"description": why, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
#define BUSY_ANSWER(name, why)                                                                                 \
  JSON(name: {"description": why, "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}},   \
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})

const char serve_openapi[] = JSON({
  "openapi": "3.0.3",
  "info": {
    "title": "nmt-serve",
    "version": "1",
    "description": "nmt's translation server (docs/serve.md): its JSON API, LibreTranslate's API, Marian's websocket protocol, health, readiness and metrics. With --api-keys a translation needs a key: Authorization: Bearer KEY, or the body's api_key field."
  },
  "paths": {
    "/translate": {
      "post": {
        "summary": "Translate: the JSON API ({\"text\": ...}), or LibreTranslate's ({\"q\": ...}), as JSON or form fields",
        "security": [{}, {"bearer": []}],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "oneOf": [
                  {"$ref": "#/components/schemas/TranslateRequest"},
                  {"$ref": "#/components/schemas/LibreTranslateRequest"}
                ]
              }
            },
            "application/x-www-form-urlencoded": {"schema": {"$ref": "#/components/schemas/LibreTranslateRequest"}}
          }
        },
        "responses": {
          "200": {
            "description": "The translations, in the shape of text (or q)",
            "content": {
              "application/json": {
                "schema": {
                  "oneOf": [
                    {"$ref": "#/components/schemas/TranslateAnswer"},
                    {"$ref": "#/components/schemas/LibreTranslateAnswer"}
                  ]
                }
              }
            }
          },
          "400": {"$ref": "#/components/responses/BadRequest"},
          "401": {"$ref": "#/components/responses/NoKey"},
          "403": {"$ref": "#/components/responses/Forbidden"},
          "405": {"$ref": "#/components/responses/WrongMethod"},
          "408": {"$ref": "#/components/responses/ReceiveTimeout"},
          "413": {"$ref": "#/components/responses/TooLarge"},
          "429": {"$ref": "#/components/responses/RateLimited"},
          "500": {"$ref": "#/components/responses/ServerError"},
          "503": {"$ref": "#/components/responses/Busy"},
          "504": {"$ref": "#/components/responses/AnswerTimeout"}
        }
      },
      "get": {
        "summary": "Marian's websocket protocol (Upgrade: websocket): a message of lines in, their translations out",
        "security": [{}, {"bearer": []}],
        "responses": {
          "101": {"description": "Switching to the websocket"},
          "400": {"$ref": "#/components/responses/BadHandshake"},
          "401": {"$ref": "#/components/responses/NoKey"},
          "403": {"$ref": "#/components/responses/ForbiddenUpgrade"},
          "405": {"$ref": "#/components/responses/NoUpgrade"},
          "429": {"$ref": "#/components/responses/RateLimited"}
        }
      }
    },
    "/languages": {
      "get": {
        "summary": "LibreTranslate's languages: the server's source language and its target",
        "responses": {
          "200": {
            "description": "[] when the server has no languages",
            "content": {
              "application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Language"}}}
            }
          }
        }
      }
    },
    "/health": {
      "get": {
        "summary": "Liveness (the model's files only to a local client)",
        "responses": {
          "200": {
            "description": "The server answers",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["status", "queued"],
                  "properties": {
                    "status": {"type": "string", "enum": ["ok"]},
                    "model": {"type": "string"},
                    "queued": {"type": "integer"}
                  }
                }
              }
            }
          }
        }
      }
    },
    "/ready": {
      "get": {
        "summary": "Readiness: whether to send it work",
        "responses": {
          "200": {
            "description": "The queue takes more",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": ["status", "queued"],
                  "properties": {"status": {"type": "string", "enum": ["ready"]}, "queued": {"type": "integer"}}
                }
              }
            }
          },
          "503": {"$ref": "#/components/responses/NotReady"}
        }
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus's text exposition format (0.0.4)",
        "responses": {
          "200": {
            "description": "Counters, gauges and histograms (docs/serve.md)",
            "content": {"text/plain": {"schema": {"type": "string"}}}
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "summary": "This document",
        "responses": {
          "200": {"description": "OpenAPI 3.0", "content": {"application/json": {"schema": {"type": "object"}}}}
        }
      }
    },
    "/": {
      "get": {
        "summary": "A page to try the model in a browser",
        "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "--api-keys: one of the file's keys (or the body's api_key field)"
      }
    },
    "headers": {"RetryAfter": {"description": "Seconds to wait", "schema": {"type": "integer"}}},
    "schemas": {
      "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
      "TranslateRequest": {
        "type": "object",
        "required": ["text"],
        "additionalProperties": false,
        "properties": {
          "text": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "beam_size": {"type": "integer", "minimum": 1},
          "n_best": {"type": "boolean"},
          "alignment": {"oneOf": [{"type": "boolean"}, {"type": "string", "enum": ["hard", "soft", "svg"]}]},
          "prefix": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "sampling": {"type": "string", "description": "full, or topk K"},
          "temperature": {"type": "number"},
          "seed": {"type": "integer", "minimum": 0},
          "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 86400000},
          "api_key": {"type": "string"}
        }
      },
      "LibreTranslateRequest": {
        "type": "object",
        "required": ["q", "source", "target"],
        "additionalProperties": false,
        "properties": {
          "q": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "source": {"type": "string", "description": "auto, or the server's source language"},
          "target": {"type": "string"},
          "format": {"type": "string", "enum": ["text", "html"], "description": "html is refused (400)"},
          "api_key": {"type": "string"}
        }
      },
      "NBest": {
        "type": "array",
        "items": {"type": "object", "properties": {"translation": {"type": "string"}, "score": {"type": "number"}}}
      },
      "TranslateAnswer": {
        "type": "object",
        "required": ["translation"],
        "properties": {
          "translation": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "n_best": {
            "oneOf": [
              {"$ref": "#/components/schemas/NBest"},
              {"type": "array", "items": {"$ref": "#/components/schemas/NBest"}}
            ]
          },
          "alignment": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
        }
      },
      "DetectedLanguage": {
        "type": "object",
        "properties": {"confidence": {"type": "number"}, "language": {"type": "string"}}
      },
      "LibreTranslateAnswer": {
        "type": "object",
        "required": ["translatedText"],
        "properties": {
          "translatedText": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
          "detectedLanguage": {
            "oneOf": [
              {"$ref": "#/components/schemas/DetectedLanguage"},
              {"type": "array", "items": {"$ref": "#/components/schemas/DetectedLanguage"}}
            ]
          }
        }
      },
      "Language": {
        "type": "object",
        "required": ["code", "name", "targets"],
        "properties": {
          "code": {"type": "string"},
          "name": {"type": "string"},
          "targets": {"type": "array", "items": {"type": "string"}}
        }
      }
    },
    "responses": {
) /* the error answers, each written once */
    ERROR_ANSWER("BadRequest", "A bad request: not JSON nor a form, a bad field (the message names it)") ","
    ERROR_ANSWER("NoKey", "--api-keys: no key") ","
    ERROR_ANSWER("Forbidden", "An Origin not served; --api-keys: a key not in the file") ","
    ERROR_ANSWER("WrongMethod", "Another method") ","
    ERROR_ANSWER("ReceiveTimeout", "Not received within --receive-timeout") ","
    ERROR_ANSWER("TooLarge", "Past a limit (--max-request-bytes, --max-request-sentences, --max-sentence-words, --max-alignment-cells, --max-answer-bytes)") ","
    BUSY_ANSWER("RateLimited", "--rate-limit: the key is past its rate") ","
    ERROR_ANSWER("ServerError", "Out of memory, or a decoding error") ","
    BUSY_ANSWER("Busy", "The queue is full (--max-queue), or the server is shutting down") ","
    ERROR_ANSWER("AnswerTimeout", "Not answered within timeout_ms or --request-timeout") ","
    ERROR_ANSWER("BadHandshake", "No valid Sec-WebSocket-Key") ","
    ERROR_ANSWER("ForbiddenUpgrade", "An Origin not served, or a key not in the file") ","
    ERROR_ANSWER("NoUpgrade", "GET without Upgrade: websocket") ","
    BUSY_ANSWER("NotReady", "The queue is full, or the server is shutting down")
    "}}}\n";
