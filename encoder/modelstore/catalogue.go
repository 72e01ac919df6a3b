package modelstore

import (
	"slices"

	"github.com/dreval/dreval/modelfiles"
)

// This file is the Hub part of the catalogue: the retrievers of the
// perturbation study (BERT, DPR, Contriever, SimCSE, ANCE), each pinned to
// a commit of its Hugging Face repository where one could be found. The
// commits were found without access to the Hub, in public material that
// records them (each entry's Source says where); none was made up. Where
// none was found the entry installs the branch "main", says so (Pinned is
// false, and "dreval model list" shows it) and records the commit it got.
//
// The weights: the repositories of the study's models mostly predate
// safetensors and publish pytorch_model.bin (a PyTorch checkpoint: a
// pickle and its storages); an entry's Pickle records that, as far as
// known (public code loading these checkpoints with use_safetensors=False,
// the repositories' age). dreval reads it safely, with a restricted
// unpickler that runs no code (package torchckpt), so the install takes
// it. The Hub's metadata decides: a revision that lists model.safetensors
// installs that instead (weightsFiles). No safetensors conversion (the
// Hub's refs/pr/N branches) of these revisions could be confirmed from
// here, so none is used.

// Source notes shared by several entries.
const (
	srcNoCommit = "no commit id of this repository found in public material reachable from here (MTEB's model registry and results, pyserini, Hugging Face cache paths in public code); installs the branch main"
)

// weightsFiles are a checkpoint's weights: model.safetensors, else
// pytorch_model.bin (one of them, the first the revision has).
func weightsFiles() []HubFile {
	return []HubFile{
		{Path: "model.safetensors", OneOf: "weights"},
		{Path: modelfiles.PyTorch, OneOf: "weights"},
	}
}

// bertFiles are the files of a BERT (WordPiece) checkpoint the loaders
// read: the configuration, the weights, the tokenizer (tokenizer.json or
// vocab.txt with its settings) and sentence-transformers' settings where
// the repository has them.
func bertFiles() []HubFile {
	return slices.Concat(
		[]HubFile{{Path: "config.json"}},
		weightsFiles(),
		[]HubFile{
			{Path: "tokenizer.json", AnyOf: "tokenizer"},
			{Path: "vocab.txt", AnyOf: "tokenizer"},
			{Path: "tokenizer_config.json", Optional: true},
			{Path: "special_tokens_map.json", Optional: true},
		},
		sentenceTransformersFiles())
}

// robertaFiles are bertFiles for a RoBERTa (byte-level BPE) checkpoint:
// tokenizer.json, or vocab.json and merges.txt.
func robertaFiles() []HubFile {
	return slices.Concat(
		[]HubFile{{Path: "config.json"}},
		weightsFiles(),
		[]HubFile{
			{Path: "tokenizer.json", AnyOf: "tokenizer"},
			{Path: "vocab.json", AnyOf: "tokenizer"},
			{Path: "merges.txt", Optional: true},
			{Path: "tokenizer_config.json", Optional: true},
			{Path: "special_tokens_map.json", Optional: true},
		},
		sentenceTransformersFiles())
}

// sentenceTransformersFiles are sentence-transformers' settings, installed
// where a repository has them.
func sentenceTransformersFiles() []HubFile {
	return []HubFile{
		{Path: "modules.json", Optional: true},
		{Path: "sentence_bert_config.json", Optional: true},
		{Path: "config_sentence_transformers.json", Optional: true},
		{Path: "1_Pooling/config.json", Optional: true},
	}
}

// hubCatalogue returns the catalogue's Hub models.
func hubCatalogue() []Model {
	return []Model{
		// bert-base-uncased: google-bert/bert-base-uncased (the repository
		// "bert-base-uncased" moved there) at 86b5e09, the commit of MTEB's
		// results (embeddings-benchmark/results, results/google-bert__bert-
		// base-uncased/86b5e0934494bd15c9632b12f734a8a67f723594/
		// model_meta.json) and of many Hugging Face cache paths in public
		// code (models--bert-base-uncased/snapshots/86b5e09...). It
		// publishes model.safetensors.
		{
			Name:        "bert-base-uncased",
			Description: "BERT base uncased (Devlin et al. 2019), not trained for retrieval: the study's baseline",
			Hub: []HubRepo{{
				Repo:     "google-bert/bert-base-uncased",
				Revision: "86b5e0934494bd15c9632b12f734a8a67f723594",
				Source:   "MTEB results (embeddings-benchmark/results: results/google-bert__bert-base-uncased/86b5e09.../model_meta.json) and Hugging Face cache paths in public code",
				Files:    bertFiles(),
			}},
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "mean", Score: "cos", MaxLength: 512, License: "Apache-2.0"},
		},
		// dpr-nq: DPR's question and passage encoders trained on Natural
		// Questions, two repositories installed as two towers with a
		// manifest. No commit of either was found: both install main. The
		// embedding is the [CLS] state (pooler_output; projection_dim 0),
		// scored by dot product; pyserini's DprDocumentEncoder truncates
		// passages at 256 tokens and its DprQueryEncoder does not truncate
		// queries (BERT's 512). The repositories publish pytorch_model.bin
		// (and tf_model.h5), as far as known.
		{
			Name:        "dpr-nq",
			Description: "DPR (Karpukhin et al. 2020) question and passage encoders trained on Natural Questions (two towers)",
			Hub: []HubRepo{
				{
					Repo:     "facebook/dpr-question_encoder-single-nq-base",
					Revision: "main",
					Source:   srcNoCommit,
					Dir:      "question_encoder",
					Files:    bertFiles(),
					Pickle:   "pytorch_model.bin",
				},
				{
					Repo:     "facebook/dpr-ctx_encoder-single-nq-base",
					Revision: "main",
					Source:   srcNoCommit,
					Dir:      "ctx_encoder",
					Files:    bertFiles(),
					Pickle:   "pytorch_model.bin",
				},
			},
			Manifest: &Manifest{Query: "question_encoder", Document: "ctx_encoder", Score: "dot", DocumentMaxLength: 256},
			Card: Card{Arch: "BERT (DPRQuestionEncoder, DPRContextEncoder)", Towers: 2, Pooling: "[CLS] (pooler_output, no projection)",
				Score: "dot", MaxLength: 256, QueryMaxLength: 512, License: "CC-BY-NC-4.0"},
		},
		// contriever: facebook/contriever at 2bd46a2, the commit of MTEB's
		// results (results/facebook__contriever/2bd46a25019aeea091fd42d1f0
		// fd4801675cf699/) and of a Hugging Face cache path in public code
		// (models--facebook--contriever/snapshots/2bd46a2...). Mean
		// pooling, dot product, not normalised; contriever's
		// generate_passage_embeddings.py truncates passages at 512 tokens.
		// The repository (last changed in 2022, before safetensors)
		// publishes pytorch_model.bin.
		{
			Name:        "contriever",
			Description: "Contriever (Izacard et al. 2022), unsupervised contrastive pre-training",
			Hub: []HubRepo{{
				Repo:     "facebook/contriever",
				Revision: "2bd46a25019aeea091fd42d1f0fd4801675cf699",
				Source:   "MTEB results (embeddings-benchmark/results: results/facebook__contriever/2bd46a2.../) and a Hugging Face cache path in public code",
				Files:    bertFiles(),
				Pickle:   "pytorch_model.bin",
			}},
			Manifest: &Manifest{Score: "dot", Pooling: "mean"},
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "mean", Score: "dot", MaxLength: 512,
				License: "CC-BY-NC-4.0 (facebookresearch/contriever; the model card names none)"},
		},
		// contriever-msmarco: facebook/contriever-msmarco at abe8c14, the
		// revision of MTEB's model registry (mteb/models/
		// model_implementations/sentence_transformers_models.py:
		// revision="abe8c1493371369031bcb1e02acb754cf4e162fa") and of its
		// results. As contriever.
		{
			Name:        "contriever-msmarco",
			Description: "Contriever fine-tuned on MS MARCO (Izacard et al. 2022)",
			Hub: []HubRepo{{
				Repo:     "facebook/contriever-msmarco",
				Revision: "abe8c1493371369031bcb1e02acb754cf4e162fa",
				Source:   "MTEB's model registry (sentence_transformers_models.py, revision=abe8c14...) and results",
				Files:    bertFiles(),
				Pickle:   "pytorch_model.bin",
			}},
			Manifest: &Manifest{Score: "dot", Pooling: "mean"},
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "mean", Score: "dot", MaxLength: 512,
				License: "CC-BY-NC-4.0 (facebookresearch/contriever; the model card names none)"},
		},
		// simcse-sup: princeton-nlp/sup-simcse-bert-base-uncased at 2d82fab,
		// the revision of MTEB's results (results/princeton-nlp__sup-
		// simcse-bert-base-uncased/2d82fab19ac3a73a20dd20333d27eb8a52d6e97f/
		// model_meta.json). Supervised SimCSE embeds with the [CLS] state
		// through BERT's pooler (the MLP), cosine; SimCSE's tool encodes at
		// most 128 tokens. A 2021 repository: pytorch_model.bin.
		{
			Name:        "simcse-sup",
			Description: "SimCSE (Gao et al. 2021), supervised (NLI), BERT base uncased",
			Hub: []HubRepo{{
				Repo:     "princeton-nlp/sup-simcse-bert-base-uncased",
				Revision: "2d82fab19ac3a73a20dd20333d27eb8a52d6e97f",
				Source:   "MTEB results (embeddings-benchmark/results: results/princeton-nlp__sup-simcse-bert-base-uncased/2d82fab.../model_meta.json)",
				Files:    bertFiles(),
				Pickle:   "pytorch_model.bin",
			}},
			Manifest: &Manifest{Score: "cos", Pooling: "pooler", QueryMaxLength: 128, DocumentMaxLength: 128},
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "[CLS] through the MLP pooler (cls)", Score: "cos", MaxLength: 128,
				License: "MIT (princeton-nlp/SimCSE; the model card names none)"},
		},
		// simcse-unsup: princeton-nlp/unsup-simcse-bert-base-uncased. No
		// commit found (MTEB's results for it are under
		// no_revision_available): installs main. Unsupervised SimCSE
		// embeds with the [CLS] state before the pooler
		// (cls_before_pooler), cosine, 128 tokens. pytorch_model.bin.
		{
			Name:        "simcse-unsup",
			Description: "SimCSE (Gao et al. 2021), unsupervised (dropout), BERT base uncased",
			Hub: []HubRepo{{
				Repo:     "princeton-nlp/unsup-simcse-bert-base-uncased",
				Revision: "main",
				Source:   srcNoCommit,
				Files:    bertFiles(),
				Pickle:   "pytorch_model.bin",
			}},
			Manifest: &Manifest{Score: "cos", Pooling: "cls", QueryMaxLength: 128, DocumentMaxLength: 128},
			Card: Card{Arch: "BERT", Towers: 1, Pooling: "[CLS] before the pooler (cls_before_pooler)", Score: "cos", MaxLength: 128,
				License: "MIT (princeton-nlp/SimCSE; the model card names none)"},
		},
		// ance-msmarco: castorini/ance-msmarco-passage, pyserini's ANCE
		// (RobertaModel, then embeddingHead Linear and norm LayerNorm on
		// the first token; dot product), at 6d7e7d6, the commit of a
		// Hugging Face cache path in public code (models--castorini--ance-
		// msmarco-passage/snapshots/6d7e7d6b6c59dd691671f280bc74edb4297f8234:
		// the cache names snapshots by commit). pyserini encodes queries at
		// 64 tokens and passages at 256, and loads this checkpoint with
		// use_safetensors=False: it publishes pytorch_model.bin.
		// (sentence-transformers/msmarco-roberta-base-ance-firstp is the
		// same model in sentence-transformers' layout; no commit of it was
		// found, and it is not in the catalogue.)
		{
			Name:        "ance-msmarco",
			Description: "ANCE (Xiong et al. 2021), MS MARCO passage, FirstP; pyserini's checkpoint",
			Hub: []HubRepo{{
				Repo:     "castorini/ance-msmarco-passage",
				Revision: "6d7e7d6b6c59dd691671f280bc74edb4297f8234",
				Source:   "a Hugging Face cache path in public code (models--castorini--ance-msmarco-passage/snapshots/6d7e7d6...)",
				Files:    robertaFiles(),
				Pickle:   "pytorch_model.bin",
			}},
			Manifest: &Manifest{Score: "dot", QueryMaxLength: 64, DocumentMaxLength: 256},
			Card: Card{Arch: "RoBERTa (pyserini AnceEncoder)", Towers: 1, Pooling: "first token, then Linear and LayerNorm",
				Score: "dot", MaxLength: 256, QueryMaxLength: 64,
				License: "not stated on the model card (microsoft/ANCE's code and checkpoints: MIT)"},
		},
	}
}
