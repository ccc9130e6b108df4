"""Non-RAG and RAG answerer factories: task prompts, retrieval over the private documents, bad input,
and a small run on Medical Synth with the offline models."""

from __future__ import annotations

import pytest
from fakes import HashEmbedder

from dpsynrag.baselines import non_rag_answerer, rag_answerer
from dpsynrag.data.io import Document
from dpsynrag.errors import ConfigError, DataError
from dpsynrag.rag import DEFAULT_SYSTEM_PROMPT
from dpsynrag.tasks import get_task

DOCS = [Document("a", "the patient has fever and cough"), Document("b", "the doctor has a test of blood"),
        Document("c", "the heart and lung test was good")]


def test_non_rag_uses_no_documents_and_the_task_prompt(tiny_lm):
    a = non_rag_answerer(tiny_lm, task="medical", max_new_tokens=3)
    assert a.texts == [] and a.system_prompt == get_task("medical").answer_system_prompt
    answers = a.answer(["the patient has fever"])
    assert answers[0].context == () and isinstance(answers[0].text, str)
    assert non_rag_answerer(lm=tiny_lm).system_prompt == DEFAULT_SYSTEM_PROMPT
    assert non_rag_answerer(tiny_lm, system_prompt="Be brief.").system_prompt == "Be brief."


def test_rag_retrieves_private_documents(tiny_lm):
    a = rag_answerer(DOCS, tiny_lm, HashEmbedder(), task=get_task("medical"), top_k=2, max_new_tokens=3)
    assert a.top_k == 2 and a.system_prompt == get_task("medical").answer_system_prompt
    answers = a.answer(["the patient has fever and cough"])
    assert answers[0].context[0] == "the patient has fever and cough" and len(answers[0].context) == 2
    assert rag_answerer([d.text for d in DOCS], lm=tiny_lm, embedder=HashEmbedder(), task="medical").top_k == 10


def test_bad_input(tiny_lm):
    with pytest.raises(DataError):
        rag_answerer([], tiny_lm, HashEmbedder())
    with pytest.raises(DataError):
        rag_answerer([3, 4], tiny_lm, HashEmbedder())
    with pytest.raises(ConfigError):
        rag_answerer(DOCS, tiny_lm, None)
    with pytest.raises(ConfigError):
        rag_answerer(DOCS, tiny_lm, HashEmbedder(), top_k=0)
    with pytest.raises(ConfigError):
        non_rag_answerer(tiny_lm, max_new_tokens=0)
    with pytest.raises(ConfigError):
        non_rag_answerer(tiny_lm, task="no-such-task")


@pytest.mark.slow
def test_non_rag_and_rag_on_medical_slice(offline_lm, offline_embedder, medical_slice):
    task = get_task("medical")
    queries = task.load_queries(limit=2)
    questions = [q.meta["question_symptoms"] for q in queries]
    rag = rag_answerer(medical_slice[:40], offline_lm, offline_embedder, task=task, top_k=3, max_new_tokens=8)
    non = non_rag_answerer(offline_lm, task=task, max_new_tokens=8)
    r, n = rag.answer(questions), non.answer(questions)
    print("RAG:", [a.text for a in r], "Non-RAG:", [a.text for a in n])
    assert all(len(a.context) == 3 for a in r) and all(a.context == () for a in n)
    assert all(c in {d.text for d in medical_slice[:40]} for a in r for c in a.context)
