// The attention core, every curriculum step: include this one header.
#pragma once

#include "attention/attention_backward.h"
#include "attention/attention_without_weights.h"
#include "attention/causal_average.h"
#include "attention/checks.h"
#include "attention/checks_backward.h"
#include "attention/compare.h"
#include "attention/cross_attention.h"
#include "attention/dropout.h"
#include "attention/multihead.h"
#include "attention/next_token.h"
#include "attention/options.h"
#include "attention/results.h"
#include "attention/self_attention.h"
#include "attention/softmax.h"
#include "attention/tensor.h"
#include "attention/weights.h"
