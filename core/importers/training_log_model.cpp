#include "core/importers/training_log_model.hpp"

namespace meshscope {

Result<ModelSpec> model_spec_from_log(const MeasuredRun& run) {
  const LogModelDims& d = run.model;
  const auto need = [&](const std::optional<int64_t>& value, const char* name) -> Result<int64_t> {
    if (!value || *value <= 0)
      return make_error(ErrorCode::missing_field,
                        std::string("the log does not give the model's ") + name + "; pass --model", run.origin);
    return *value;
  };
  if (d.num_experts && *d.num_experts > 0)
    return make_error(ErrorCode::unsupported,
                      "the log's model has experts; the argument dump does not describe its router: pass --model",
                      run.origin);
  MS_TRY(layers, need(d.num_layers, "num_layers"));
  MS_TRY(hidden, need(d.hidden_size, "hidden_size"));
  MS_TRY(heads, need(d.num_attention_heads, "num_attention_heads"));
  MS_TRY(vocab, need(d.vocab_size, "vocabulary size (padded vocab)"));
  ModelSpec m;
  m.name = "model from " + run.origin;
  m.source = run.origin + " (argument dump)";
  m.vocab_size = vocab;
  m.hidden_size = hidden;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = d.num_query_groups.value_or(heads);
  m.head_dim = d.head_dim.value_or(hidden / heads);
  m.ffn_hidden_size = d.ffn_hidden_size.value_or(4 * hidden);
  m.mlp = d.gated_mlp.value_or(false) ? MlpKind::gated : MlpKind::plain;
  m.norm = d.rmsnorm.value_or(false) ? NormKind::rmsnorm : NormKind::layernorm;
  m.position = d.rotary.value_or(false) ? PositionKind::rotary : PositionKind::learned;
  m.max_position_embeddings = d.max_position_embeddings.value_or(d.seq_length.value_or(0));
  m.tied_embeddings = d.tied_embeddings.value_or(true);
  const bool bias = d.linear_bias.value_or(false);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = bias;
  m.dropout = d.dropout.value_or(false);
  return m;
}

}  // namespace meshscope
