#pragma once
// Models in the configuration the papers assume: GPT-style (4h GeLU MLP, LayerNorm with biases,
// learned positions, tied head, dropout), built from a few published dimensions.
#include "core/model/catalogue.hpp"

namespace meshscope::test {

inline ModelSpec gpt_style(int64_t layers, int64_t hidden, int64_t heads, int64_t vocab, int64_t positions) {
  ModelSpec m = *model_preset("gpt2");
  m.name = "GPT-style";
  m.num_layers = layers;
  m.hidden_size = hidden;
  m.num_heads = heads;
  m.num_kv_heads = heads;
  m.head_dim = hidden / heads;
  m.ffn_hidden_size = 4 * hidden;
  m.vocab_size = vocab;
  m.max_position_embeddings = positions;
  m.dropout = true;
  return m;
}

// The workload Korthikanti et al. assume: 16-bit activations, dropout, stored attention scores.
inline TrainingWorkload korthikanti_workload(int64_t seq, int64_t global_batch, RecomputeMode recompute) {
  TrainingWorkload w;
  w.seq_len = seq;
  w.global_batch = global_batch;
  w.activation_dtype = DType::fp16;
  w.flash_attention = false;
  w.dropout = true;
  w.recompute = recompute;
  w.output_layer_activations = true;
  w.fp32_logits = true;
  // Megatron-LM of 2021-22 (SC21, Korthikanti et al.) sent pipeline tensors synchronously: the
  // asynchronous interleaved sends came in 2023 behind --overlap-p2p-communication, off by default.
  w.overlap_p2p_comm = false;
  return w;
}

}  // namespace meshscope::test
