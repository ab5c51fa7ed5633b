"""Presidio's analyzer and anonymizer as the HTTP service LiteLLM's Presidio guardrail calls (bench venv only).

The same two endpoints as Presidio's own Docker images (`POST /analyze`, `POST /anonymize`, JSON in and out, the
bodies of presidio-analyzer/presidio-anonymizer `app.py`), served by Starlette instead of Flask. The analyzer runs
on `spacy.blank("en")` exactly as subjects.py does: nothing is downloaded, so the pattern recognizers (email,
phone, credit card, IBAN, IP, URL, crypto, US SSN...) work and the NER ones (PERSON, LOCATION) find nothing.

    .venv-bench/bin/python tests/benchmarks/presidio_service.py PORT
"""

from __future__ import annotations

import sys
from typing import Any

import spacy
import uvicorn
from presidio_analyzer import AnalyzerEngine, RecognizerResult
from presidio_analyzer.nlp_engine import SpacyNlpEngine
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


def _analyzer() -> AnalyzerEngine:
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": "blank"}])
    engine.nlp = {"en": spacy.blank("en")}  # already "loaded": no spacy.load, no download
    return AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])


ANALYZER = _analyzer()
ANONYMIZER = AnonymizerEngine()


async def analyze(request: Request) -> Response:
    body: dict[str, Any] = await request.json()
    results = ANALYZER.analyze(
        text=body["text"],
        language=body.get("language", "en"),
        entities=body.get("entities"),
        score_threshold=body.get("score_threshold"),
    )
    return JSONResponse([r.to_dict() for r in results])


async def anonymize(request: Request) -> Response:
    body: dict[str, Any] = await request.json()
    results = [RecognizerResult.from_json(r) for r in body.get("analyzer_results") or []]
    operators = {k: OperatorConfig.from_json(v) for k, v in (body.get("anonymizers") or {}).items()}
    out = ANONYMIZER.anonymize(text=body["text"], analyzer_results=results, operators=operators or None)
    return Response(out.to_json(), media_type="application/json")


async def health(request: Request) -> Response:
    return Response("Presidio service is up")


app = Starlette(
    routes=[
        Route("/analyze", analyze, methods=["POST"]),
        Route("/anonymize", anonymize, methods=["POST"]),
        Route("/health", health),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
