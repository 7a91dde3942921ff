#pragma once
// ModelSpec: the architecture of a decoder-only transformer (dense, MoE, MLA), and its parameter
// counts. Counting follows the module shapes of the Hugging Face reference implementations
// (modeling_llama.py, modeling_mixtral.py, modeling_qwen3_moe.py, modeling_deepseek_v3.py,
// modeling_gpt2.py): every nn.Linear weight, bias and norm weight is counted exactly once.
#include <cstdint>
#include <string>

namespace meshscope {

enum class MlpKind { plain, gated };          // plain: act(x W1) W2; gated (SwiGLU): (act(x Wg) * x Wu) Wd
enum class NormKind { layernorm, rmsnorm };   // LayerNorm has weight and bias; RMSNorm only weight
enum class PositionKind { rotary, learned };  // learned: a max_positions × hidden table (GPT-2)

struct MoeSpec {
  int64_t num_experts = 0;                    // routed experts per MoE layer (0: dense model)
  int64_t top_k = 0;                          // routed experts per token
  int64_t expert_ffn_hidden_size = 0;         // FFN width of one routed expert
  int64_t num_shared_experts = 0;             // always-active experts (DeepSeek, Qwen2-MoE)
  int64_t shared_expert_ffn_hidden_size = 0;  // width of one shared expert
  int64_t first_dense_layers = 0;             // leading layers with a dense MLP (DeepSeek-V3: 3)
  int64_t layer_frequency = 1;                // after those, layer l is MoE when l % frequency == phase
  int64_t layer_phase = 0;   // (DeepSeek moe_layer_freq: phase 0; Qwen decoder_sparse_step s: phase s-1)
  bool router_bias = false;  // a per-expert score-correction bias (DeepSeek-V3)
  bool operator==(const MoeSpec&) const = default;
};

struct MlaSpec {             // DeepSeek-V2/V3 multi-head latent attention
  int64_t q_lora_rank = 0;   // 0: queries projected directly from the hidden state
  int64_t kv_lora_rank = 0;  // > 0 enables MLA
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;
  [[nodiscard]] bool enabled() const { return kv_lora_rank > 0; }
  bool operator==(const MlaSpec&) const = default;
};

struct ModelSpec {
  std::string name;
  std::string source;  // where the configuration comes from
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;     // == num_heads: MHA; 1: MQA; otherwise GQA
  int64_t head_dim = 0;         // per-head width of Q/K/V (may differ from hidden/heads)
  int64_t ffn_hidden_size = 0;  // dense MLP width
  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rmsnorm;
  PositionKind position = PositionKind::rotary;
  int64_t max_position_embeddings = 0;
  bool tied_embeddings = false;
  bool qkv_bias = false;       // Qwen2: bias on q, k, v
  bool attn_out_bias = false;  // GPT-2: bias on the output projection
  bool mlp_bias = false;       // GPT-2: biases in the MLP
  bool qk_norm = false;        // Qwen3: RMSNorm over each head of q and k
  bool dropout = false;        // dropout layers present in training (GPT-style)
  // Sliding-window attention (Mistral 7B v0.1; Gemma 2 and 3; GPT-OSS, OpenAI model card 2025 §2.1):
  // a query of a sliding layer attends to the sliding_window most recent positions, itself
  // included (Hugging Face's sliding_window); 0: every layer attends to the whole context.
  int64_t sliding_window = 0;
  // With a window, every full_attention_every-th layer — the last of each group of that many, as
  // Hugging Face's layer_types lay them out (GPT-OSS and Gemma 2: 2, layer 0 slides; Gemma 3: 6) —
  // attends to the whole context and the others slide; 0: every layer slides (Mistral 7B v0.1).
  int64_t full_attention_every = 0;
  bool attention_sinks = false;  // GPT-OSS: one learned logit per head in each softmax's denominator
  MoeSpec moe;
  MlaSpec mla;

  [[nodiscard]] bool is_moe() const { return moe.num_experts > 0; }
  [[nodiscard]] bool is_sliding_layer(int64_t layer) const;
  [[nodiscard]] int64_t num_sliding_layers() const;
  // The keys one query attends to in `layer`, averaged over the `seq` queries of a sequence: seq/2
  // causal, seq full; a sliding layer's causal queries attend to min(position + 1, window), on
  // average w − w²/2s for s > w (and s/2 up to the window, where the two meet).
  [[nodiscard]] double mean_attended_keys(int64_t layer, double seq, bool causal) const;
  // KV entries a sequence of `context` tokens keeps, averaged over the layers: `context` in a full
  // layer, min(context, window) in a sliding one (what a serving engine holds per sequence).
  [[nodiscard]] double kv_resident_tokens(double context) const;
  [[nodiscard]] bool is_moe_layer(int64_t layer) const;
  [[nodiscard]] int64_t num_moe_layers() const;
  [[nodiscard]] int64_t q_width() const;   // output width of the query projection
  [[nodiscard]] int64_t kv_width() const;  // output width of the K (== V) projection (non-MLA)
  // Width of the attention core's output over all query heads (MLA: the value head dim); V as
  // SDPA receives it when repeated to the query heads (K's is q_width()).
  [[nodiscard]] int64_t attention_output_width() const;
  bool operator==(const ModelSpec&) const = default;
};

// Parameter counts, split by where they live. "active" counts what one token touches: the
// routed experts it is sent to, every other weight (Mixtral and Qwen count embedding and head
// in their "active" figures; DeepSeek's 37B matches active_excluding_embedding, see docs).
struct ParamSplit {
  double embedding = 0;  // token (and learned position) embedding tables
  double attention = 0;  // q/k/v/o projections, biases, q/k norms, MLA down/up projections + norms
  double mlp = 0;        // dense MLPs (non-MoE layers)
  double experts = 0;    // routed + shared experts of MoE layers
  double router = 0;     // MoE gates (and score-correction biases)
  double norms = 0;      // per-layer pre-attention/pre-MLP norms and the final norm
  double head = 0;       // LM head (0 when tied to the embedding)
  [[nodiscard]] double total() const { return embedding + attention + mlp + experts + router + norms + head; }
};

struct ParamCounts {
  ParamSplit total;
  ParamSplit active;
  [[nodiscard]] double total_params() const { return total.total(); }
  [[nodiscard]] double active_params() const { return active.total(); }
  [[nodiscard]] double active_excluding_embedding() const { return active.total() - active.embedding; }
};

// Parameters of one transformer layer, by kind (used for pipeline stages and memory).
struct LayerParams {
  double attention = 0;
  double mlp = 0;             // dense MLP
  double routed_experts = 0;  // all routed experts of the layer
  double shared_experts = 0;
  double router = 0;
  double norms = 0;
  [[nodiscard]] double total() const { return attention + mlp + routed_experts + shared_experts + router + norms; }
};

[[nodiscard]] LayerParams layer_params(const ModelSpec& model, int64_t layer);
[[nodiscard]] double embedding_params(const ModelSpec& model);  // token (+ position) tables
[[nodiscard]] double head_params(const ModelSpec& model);       // 0 when tied
[[nodiscard]] double final_norm_params(const ModelSpec& model);
[[nodiscard]] double norm_params(const ModelSpec& model, int64_t width);
[[nodiscard]] double expert_params(const ModelSpec& model, int64_t ffn_width);  // one expert MLP
[[nodiscard]] ParamCounts count_params(const ModelSpec& model);

}  // namespace meshscope
